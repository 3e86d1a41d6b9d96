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
