import { parentPort } from "node:worker_threads";
import type { PoolReply, PoolRequest } from "./pool-protocol.js";

/**
 * The worker side of a `WorkerPool`: answers each request with `handle`, strictly one after
 * another (the pool keeps a few in flight per thread so that the thread never waits for its
 * next request). `setup` runs once, before the first request (loading a grammar, say); if it
 * fails, every request is answered as `failed`, and the pool stops the thread. Does nothing
 * outside a worker thread.
 */
export function servePoolRequests<Request, Answer, Context>(
  setup: () => Promise<Context>,
  handle: (request: Request, context: Context) => Answer | Promise<Answer>,
): void {
  const port = parentPort;
  if (!port) return;
  const ready = setup();
  let previous: Promise<void> = Promise.resolve();
  port.on("message", ({ id, request }: PoolRequest<Request>) => {
    const reply = (message: PoolReply<Answer>) => port.postMessage(message);
    previous = previous.then(() =>
      ready.then(
        (context) =>
          Promise.resolve()
            .then(() => handle(request, context))
            .then(
              (answer) => reply({ id, answer }),
              (error: unknown) => reply({ id, error: error instanceof Error ? error.message : String(error) }),
            ),
        (error: unknown) => reply({ id, failed: error instanceof Error ? error.message : String(error) }),
      ),
    );
  });
}
