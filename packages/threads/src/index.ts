export * from "./thread-count.js";
export * from "./pool-protocol.js";
export * from "./worker-pool.js";
export * from "./serve-pool-requests.js";
