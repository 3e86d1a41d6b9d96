// Worker thread of the summary pool (summary-pool.ts): summarizes the trajectories it is sent,
// strictly one after another (the pool keeps two in flight so that a thread never waits for
// its next file), and posts back each summary or the reason the file could not be read.
import { parentPort } from "node:worker_threads";
import { type SummaryTask, summarizeFile } from "./summarize-file.js";

/** A task as posted by the pool: its number, to match the answer. */
export interface PostedTask extends SummaryTask {
  id: number;
}

const port = parentPort;
if (port) {
  let previous: Promise<void> = Promise.resolve();
  port.on("message", (task: PostedTask) => {
    previous = previous.then(() =>
      summarizeFile(task).then(
        (summary) => port.postMessage({ id: task.id, summary }),
        (error: unknown) => port.postMessage({ id: task.id, error: error instanceof Error ? error.message : String(error) }),
      ),
    );
  });
}
