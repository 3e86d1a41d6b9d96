import { homedir } from "node:os";
import { join } from "node:path";

/** loclab's caches on the host: ~/.cache/loclab/… (the image builds' inputs, kept between runs). */
export function loclabCache(...parts: string[]): string {
  return join(homedir(), ".cache", "loclab", ...parts);
}

/** Wheel folders of env images, one per environment hash. */
export function defaultWheelCache(): string {
  return loclabCache("wheels");
}

/** pip's own cache for the builders (downloads; wheels built from sdists, keyed by their tags). */
export function defaultPipCache(): string {
  return loclabCache("pip");
}

/** Root file systems of the base images (the wheel builders). */
export function defaultRootCache(): string {
  return loclabCache("roots");
}
