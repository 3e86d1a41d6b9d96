import fc from "fast-check";

// Property tests run with a fixed seed so that CI is deterministic; set FC_SEED to explore
// other inputs locally (a failure prints the seed and path to replay it).
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261130) });
