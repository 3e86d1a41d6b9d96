/**
 * The SWE-bench prebuilt instance image (`swebench/sweb.eval.x86_64.<id>` with "__" written
 * "_1776_", as Docker Hub names cannot hold "__"). Only instance images are published.
 */
export function prebuiltImageName(instanceId: string, options: { namespace?: string; tag?: string } = {}): string {
  const namespace = options.namespace ?? "swebench";
  return `${namespace}/sweb.eval.x86_64.${instanceId.toLowerCase()}:${options.tag ?? "latest"}`
    .split("__")
    .join("_1776_");
}

/** loclab's local images: named by what went in, so equal content is one image. */
export const LOCAL_IMAGE_PREFIX = "loclab-swe";

export function baseImageName(hash: string): string {
  return `${LOCAL_IMAGE_PREFIX}/base:${hash.slice(0, 16)}`;
}

export function envImageName(repo: string, version: string, hash: string): string {
  return `${LOCAL_IMAGE_PREFIX}/env.${slug(repo)}.${slug(version)}:${hash.slice(0, 16)}`;
}

export function instanceImageName(instanceId: string, hash: string): string {
  return `${LOCAL_IMAGE_PREFIX}/eval.${slug(instanceId)}:${hash.slice(0, 16)}`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9._-]+/g, "_");
}
