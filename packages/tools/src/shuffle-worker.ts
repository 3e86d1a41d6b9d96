// Worker thread of the shuffle pool (shuffle-pool.ts): makes the shuffled copies it is sent,
// one after another, and posts back each report or the reason the copy could not be made.
import { servePoolRequests } from "@loclab/threads";
import { type ShuffleRepositoryOptions, shuffleRepository } from "./shuffle-checkout.js";

servePoolRequests(
  async () => undefined,
  (options: ShuffleRepositoryOptions) => shuffleRepository(options),
);
