/** Where a model server is and which environment variable holds its key (the key itself is never held). */
export interface EndpointTarget {
  /** An OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`; it may carry `user:password@`. */
  baseURL: string;
  /** The environment variable holding the API key; `OPENAI_API_KEY` when not named. */
  apiKeyEnv?: string;
}

/**
 * The API key for an endpoint, read from the environment at the time of the call: the variable
 * the endpoint names, else `OPENAI_API_KEY` (the `openai` package's own default). Undefined
 * when unset or empty: local servers (vLLM, llama.cpp, `loclab serve`) need none.
 */
export function apiKeyOf(target: EndpointTarget): string | undefined {
  return process.env[target.apiKeyEnv ?? "OPENAI_API_KEY"] || undefined;
}

/**
 * The authorization header for an endpoint: `Bearer <key>` when a key is set, else HTTP Basic
 * from the URL's credentials (fetch refuses a URL that carries them), else none.
 */
export function authHeaders(target: EndpointTarget): Record<string, string> {
  const key = apiKeyOf(target);
  if (key) return { authorization: `Bearer ${key}` };
  const credentials = urlCredentials(target.baseURL);
  return credentials ? { authorization: `Basic ${Buffer.from(credentials).toString("base64")}` } : {};
}

/** Everything secret about an endpoint (its key, its URL's credentials) removed from a text. */
export function endpointRedactor(target: EndpointTarget): (text: string) => string {
  return makeRedactor([apiKeyOf(target), ...urlSecrets(target.baseURL)]);
}

/**
 * The server's root (`http://h:8000` for `http://h:8000/v1`), without credentials: vLLM serves
 * `/health`, `/version`, `/metrics` and `/tokenize` there, not under `/v1`.
 */
export function serverRoot(baseURL: string): string {
  const url = new URL(urlWithoutCredentials(baseURL));
  url.pathname = url.pathname.replace(/\/v1\/?$/, "/").replace(/\/+$/, "");
  return url.toString().replace(/\/+$/, "");
}

/**
 * A base URL as it may be recorded (provenance, logs, error messages): user name and password
 * removed (`http://user:pass@host/v1` → `http://host/v1`). Text that is not a URL is returned
 * with any `//user:pass@` removed all the same.
 *
 * @example urlWithoutCredentials("http://me:s3cret@127.0.0.1:8000/v1") // "http://127.0.0.1:8000/v1"
 */
export function urlWithoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === "" && parsed.password === "") return url;
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, url.endsWith("/") ? "/" : "");
  } catch {
    return url.replace(/\/\/[^/@\s]*@/g, "//");
  }
}

/** The secrets a base URL carries (its user name and password, decoded and as written). */
export function urlSecrets(url: string): string[] {
  try {
    const parsed = new URL(url);
    const pairs =
      parsed.username && parsed.password
        ? [
            `${parsed.username}:${parsed.password}`,
            Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString(
              "base64",
            ),
          ]
        : [];
    return [parsed.password, decodeURIComponent(parsed.password), ...pairs].filter((secret) => secret.length >= 4);
  } catch {
    return [];
  }
}

/**
 * A redactor: every occurrence of every secret (of at least 4 characters, so that a short
 * password does not blank out common text) replaced by `[redacted]`, and URL credentials
 * stripped. Applied to everything the client returns or throws, so that a model output that
 * echoes the key, or an error that quotes the URL, never carries it into a trajectory or a log.
 */
export function makeRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const list = [
    ...new Set(secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 4)),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of list) out = out.split(secret).join("[redacted]");
    return out.replace(/(https?:\/\/)[^/@\s:]+:[^/@\s]+@/g, "$1");
  };
}

/** `user:password` of a URL (decoded), or undefined when it has none. */
export function urlCredentials(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.username === "" && parsed.password === "") return undefined;
    return `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  } catch {
    return undefined;
  }
}
