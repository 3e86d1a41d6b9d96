import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ImageBuildError } from "./image-build-error.js";

/**
 * A base image's root file system kept on the host (the folder debootstrap filled), used as the
 * wheel builder: pip runs chrooted into it, so wheels are resolved, downloaded and built by the
 * image's own Python with the image's compilers and headers (its markers, its ABI, its
 * Requires-Python), while the network is the host's (the image builds have none). The chroot
 * runs in a private mount namespace (`unshare --mount`): /proc, /dev, a tmpfs /tmp, the host's
 * resolv.conf and CA bundle and the bound folders exist only for that process; the root folder
 * itself is never written.
 */
export interface BuilderRoot {
  /** The root folder on the host. */
  root: string;
  /** The Python inside, "3.9.2". */
  python: string;
}

/** A host folder seen inside the chroot at `/tmp/loclab/<name>`. */
export interface BuilderBind {
  host: string;
  name: string;
}

export interface BuilderRunInput {
  builder: BuilderRoot;
  /** The command inside the chroot (argv). */
  command: readonly string[];
  binds: readonly BuilderBind[];
  /** Environment inside (on top of PATH, HOME, LANG, the proxies and the CA bundle). */
  env?: Record<string, string>;
  /** For errors: the image being built and what this step does. */
  image: string;
  what: string;
  onLine?: (line: string) => void;
}

/** Where a bind is seen inside the chroot. */
export function insideBuilder(name: string): string {
  return `/tmp/loclab/${name}`;
}

/** The host's CA bundle: the proxies some machines sit behind re-sign TLS with their own CA. */
export function hostCaBundle(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const candidate of [
    env.PIP_CERT,
    env.SSL_CERT_FILE,
    env.REQUESTS_CA_BUNDLE,
    "/etc/ssl/certs/ca-certificates.crt",
  ])
    if (candidate && existsSync(candidate)) return candidate;
  return undefined;
}

const PASSED_THROUGH = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "PIP_INDEX_URL",
  "PIP_EXTRA_INDEX_URL",
  "PIP_DEFAULT_TIMEOUT",
];

function quote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** The shell script `unshare --mount` runs: mounts, binds, then chroot. Exported for its test. */
export function builderScript(
  input: Pick<BuilderRunInput, "builder" | "binds" | "command">,
  ca: string | undefined,
  env: Record<string, string>,
): string {
  const root = input.builder.root;
  const lines = [
    "set -eu",
    `R=${quote(root)}`,
    "mount --make-rprivate / 2>/dev/null || true",
    'mount -t proc proc "$R/proc"',
    'mount --rbind /dev "$R/dev"',
    'mount -t tmpfs tmpfs "$R/tmp"',
    'mkdir -p "$R/tmp/loclab" "$R/tmp/home"',
    'if [ -e "$R/etc/resolv.conf" ] && [ -e /etc/resolv.conf ]; then mount --bind /etc/resolv.conf "$R/etc/resolv.conf"; fi',
  ];
  if (ca) lines.push(`touch "$R/tmp/loclab/ca.pem"`, `mount --bind ${quote(ca)} "$R/tmp/loclab/ca.pem"`);
  for (const bind of input.binds) {
    if (!/^[a-z0-9._-]+$/i.test(bind.name))
      throw new Error(`builder bind name "${bind.name}" must be a plain file name`);
    lines.push(
      `mkdir -p "$R${insideBuilder(bind.name)}"`,
      `mount --bind ${quote(bind.host)} "$R${insideBuilder(bind.name)}"`,
    );
  }
  const environment = Object.entries(env).map(([key, value]) => quote(`${key}=${value}`));
  lines.push(`exec chroot "$R" /usr/bin/env -i ${environment.join(" ")} ${input.command.map(quote).join(" ")}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Runs a command in the builder root (root needed, as for debootstrap). A non-zero exit is an
 * `ImageBuildError` for the image with the command's error lines.
 */
export function runInBuilder(input: BuilderRunInput): Promise<void> {
  const ca = hostCaBundle();
  const env: Record<string, string> = {
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: "/tmp/home",
    LANG: "C.UTF-8",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    PIP_NO_INPUT: "1",
    PIP_ROOT_USER_ACTION: "ignore",
    ...(ca
      ? {
          PIP_CERT: "/tmp/loclab/ca.pem",
          SSL_CERT_FILE: "/tmp/loclab/ca.pem",
          REQUESTS_CA_BUNDLE: "/tmp/loclab/ca.pem",
        }
      : {}),
    ...Object.fromEntries(PASSED_THROUGH.filter((key) => process.env[key]).map((key) => [key, process.env[key]!])),
    ...input.env,
  };
  if (!existsSync(join(input.builder.root, "usr", "bin", "python3")))
    return Promise.reject(
      new ImageBuildError(input.image, `the builder root ${input.builder.root} has no usr/bin/python3`),
    );
  const script = builderScript(input, ca, env);
  return new Promise((resolve, reject) => {
    const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const tail: string[] = [];
    let partial = "";
    const take = (chunk: Buffer) => {
      const text = partial + chunk.toString("utf8");
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 80) tail.shift();
        input.onLine?.(line);
      }
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error) => reject(new ImageBuildError(input.image, `unshare: ${error.message}`)));
    child.on("close", (code) => {
      if (partial) tail.push(partial);
      if (code === 0) return resolve();
      const errors = tail.filter((line) => /error|Error|No matching|Could not|not found|failed/.test(line));
      reject(
        new ImageBuildError(
          input.image,
          `${input.what} in the builder (Python ${input.builder.python}) exited ${code}: ${(errors.length ? errors.slice(-8) : tail.slice(-8)).join(" | ")}`,
        ),
      );
    });
  });
}
