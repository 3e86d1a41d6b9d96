// Worker thread of the summary pool (summary-pool.ts): summarizes the trajectories it is sent,
// one after another, and posts back each summary or the reason the file could not be read.
import { servePoolRequests } from "@loclab/threads";
import { type SummaryTask, summarizeFile } from "./summarize-file.js";

servePoolRequests(
  async () => undefined,
  (task: SummaryTask) => summarizeFile(task),
);
