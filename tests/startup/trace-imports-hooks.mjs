// Module hooks of trace-imports.mjs (they run on the loader thread): pass every resolved URL on.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}
