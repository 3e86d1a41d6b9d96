/**
 * What the harness's containers reach on the internet and loclab's (no network) must find on
 * 127.0.0.1 instead. The harness runs its eval containers with the host's network, and some
 * repositories' test suites depend on it: requests' tests before 2.10 call http://httpbin.org
 * (HTTPBIN_URL, default httpbin.org), and its timeout tests connect to 10.255.255.1, an address
 * nothing answers, expecting the connection to time out. With no network the first fail to
 * resolve the name and the second fail at once with "Network is unreachable", so the gold patch
 * fails on every requests task (measured: 0 of 6 Lite tasks).
 *
 * The stand-ins, per repository:
 * - `httpbin`: the httpbin application (the Python package httpbin.org runs) installed in the env
 *   image apart from the task's packages (pip --target), started in the eval container before
 *   the eval script on 127.0.0.1, port 80 and (https) 443, with the names it stands for mapped to
 *   127.0.0.1 in /etc/hosts: the eval script stays the harness's, byte for byte. It is served
 *   as httpbin.org serves it, by gunicorn (httpbin's own image runs it so), with threads and
 *   keep-alive: werkzeug's development server closes every connection (requests 0.14 tests
 *   `Connection: keep-alive`), and httpbin accepts chunked uploads only under gunicorn (501
 *   otherwise). https uses a certificate made in the env image for
 *   the stood-in names, trusted as the real one is, by every certificate bundle: requests
 *   verifies against its own vendored bundle (requests/cacert.pem, part of the repository under
 *   test, not to be touched) and some tests send prepared requests that no environment variable
 *   reaches, so the image's Python adds the stand-in's certificate wherever a context loads
 *   certificates (HTTPBIN_TRUST_MODULE, imported at start-up by a .pth file).
 * - `tarpits`: addresses routed to the loopback device in the container's network namespace,
 *   where a connection attempt is dropped silently and times out, as on the internet (routed
 *   from the host with nsenter: the container gets no capability).
 */
export interface NetworkStandins {
  httpbin?: HttpbinStandin;
  /** IPv4 prefixes ("10.255.255.1/32") whose connections must time out rather than fail at once. */
  tarpits?: readonly string[];
}

export interface HttpbinStandin {
  /** The pip requirements of the application and its server (pinned: the stand-in is part of the env image's hash). */
  requirements: readonly string[];
  /** The host names mapped to 127.0.0.1. */
  hosts: readonly string[];
  port: number;
  /** The https port; none: no https stand-in. */
  httpsPort?: number;
}

/** Where the httpbin application is installed in the image (its own folder, not the testbed's site-packages). */
export const HTTPBIN_DIR = "/opt/loclab/httpbin";

/** The https stand-in's certificate (its own CA) and key, made in the env image. */
export const HTTPBIN_CERT = "/opt/loclab/httpbin-tls/cert.pem";
export const HTTPBIN_KEY = "/opt/loclab/httpbin-tls/key.pem";

/** The label of an env image (inherited by its instance images) that says which stand-ins it carries. */
export const STANDINS_LABEL = "loclab.network-standins";

/** The stand-ins by repository (the Lite repositories whose tests need the network). */
export const NETWORK_STANDINS: Readonly<Record<string, NetworkStandins>> = {
  "psf/requests": {
    // www.google.co.uk: test_auth_is_stripped_on_redirect_off_host redirects there (any page will do).
    httpbin: {
      requirements: ["httpbin==0.10.2", "gunicorn==23.0.0"],
      hosts: ["httpbin.org", "www.google.co.uk"],
      port: 80,
      httpsPort: 443,
    },
    // test_requests.py's TARPIT (2.3 and later): "http://10.255.255.1".
    tarpits: ["10.255.255.1/32"],
  },
};

/** The stand-ins an image's label records; undefined for an image without them (a prebuilt one). */
export function standinsFromLabels(labels: Record<string, string>): NetworkStandins | undefined {
  const text = labels[STANDINS_LABEL];
  if (!text) return undefined;
  try {
    return JSON.parse(text) as NetworkStandins;
  } catch {
    return undefined;
  }
}

/**
 * The module that makes the image's Python trust the https stand-in's certificate wherever
 * certificates are loaded (a given CA file, the default store), imported at start-up by
 * `loclab_standin_ca.pth` in site-packages.
 */
export const HTTPBIN_TRUST_MODULE = [
  "# loclab: the network stand-in's https certificate is trusted wherever certificates are loaded,",
  "# as the real site's is by every bundle (see network-standins.ts in loclab's evaluation package).",
  "import ssl",
  "",
  `_STANDIN_CA = "${HTTPBIN_CERT}"`,
  "_load_verify_locations = ssl.SSLContext.load_verify_locations",
  "_load_default_certs = ssl.SSLContext.load_default_certs",
  "",
  "",
  "def _with_standin(self, cafile=None, capath=None, cadata=None):",
  "    _load_verify_locations(self, cafile, capath, cadata)",
  "    _load_verify_locations(self, _STANDIN_CA)",
  "",
  "",
  "def _default_with_standin(self, purpose=ssl.Purpose.SERVER_AUTH):",
  "    _load_default_certs(self, purpose)",
  "    _load_verify_locations(self, _STANDIN_CA)",
  "",
  "",
  "ssl.SSLContext.load_verify_locations = _with_standin",
  "ssl.SSLContext.load_default_certs = _default_with_standin",
  "",
].join("\n");

/**
 * The env image's command that makes the https certificate (openssl comes with ca-certificates)
 * and installs the trust module (given as /tmp/loclab_standin_ca.py) into site-packages.
 */
export function httpbinCertificateCommand(standin: HttpbinStandin): string {
  const names = standin.hosts.map((host) => `DNS:${host}`).join(",");
  return [
    `mkdir -p ${HTTPBIN_CERT.replace(/\/[^/]+$/, "")}`,
    `openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=${standin.hosts[0]} -addext subjectAltName=${names} -keyout ${HTTPBIN_KEY} -out ${HTTPBIN_CERT}`,
    `site=$(python3 -c 'import site; print(site.getsitepackages()[0])')`,
    `mkdir -p "$site"`,
    `mv /tmp/loclab_standin_ca.py "$site/"`,
    `echo 'import loclab_standin_ca' > "$site/loclab_standin_ca.pth"`,
  ].join(" && ");
}

/**
 * The shell script that starts the httpbin stand-in in a running container and waits until it
 * answers (or says why not, with its log, and exits 1). The server runs detached from the exec
 * (reparented to the container's init), its imports from HTTPBIN_DIR only.
 */
export function httpbinStartScript(standin: HttpbinStandin): string {
  const hosts = standin.hosts.join(" ");
  // The servers' imports come from HTTPBIN_DIR (PYTHONPATH, ahead of the testbed's site-packages).
  // Threads: a test holds one for ten seconds (/delay/10) while others go on.
  const gunicorn = (port: number, tls: readonly string[] = []) =>
    [
      "python3 -m gunicorn --worker-class gthread --threads 8 --keep-alive 5",
      ...tls,
      `--bind 127.0.0.1:${port} httpbin:app`,
    ].join(" ");
  return [
    "set -u",
    `grep -qx '127.0.0.1 ${hosts}' /etc/hosts || echo '127.0.0.1 ${hosts}' >> /etc/hosts`,
    `cd / && PYTHONPATH=${HTTPBIN_DIR} nohup ${gunicorn(standin.port)} > /tmp/loclab-httpbin.log 2>&1 &`,
    ...(standin.httpsPort
      ? [
          `cd / && PYTHONPATH=${HTTPBIN_DIR} nohup ${gunicorn(standin.httpsPort, ["--certfile", HTTPBIN_CERT, "--keyfile", HTTPBIN_KEY])} > /tmp/loclab-httpbins.log 2>&1 &`,
        ]
      : []),
    // Polls for at most 60 s: the server imports Flask and answers within a second or two.
    `for i in $(seq 1 120); do python3 -c 'import socket; [socket.create_connection(("127.0.0.1", port), 1).close() for port in (${[standin.port, standin.httpsPort].filter(Boolean).join(", ")},)]' 2>/dev/null && exit 0; sleep 0.5; done`,
    "echo 'httpbin did not start:'; cat /tmp/loclab-httpbin*.log; exit 1",
    "",
  ].join("\n");
}
