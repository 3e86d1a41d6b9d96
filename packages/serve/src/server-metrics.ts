import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** vLLM's latency buckets for `vllm:e2e_request_latency_seconds` (vllm/engine/metrics.py). */
const LATENCY_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0,
  7680.0,
];

export type FinishedReason = "stop" | "length" | "abort" | "tool_calls";

/**
 * The server's Prometheus metrics under vLLM's names and labels (`model_name`; requests by
 * `finished_reason`), so that the runner's load-aware dispatch and its manifest read this
 * server and vLLM the same way. One registry per server (tests start several in a process).
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly promptTokens: Counter<"model_name">;
  private readonly generationTokens: Counter<"model_name">;
  private readonly latency: Histogram<"model_name">;
  private readonly success: Counter<"model_name" | "finished_reason">;

  constructor(
    private readonly modelName: string,
    load: () => { running: number; waiting: number },
  ) {
    const registers = [this.registry];
    new Gauge({
      name: "vllm:num_requests_running",
      help: "Number of requests in model execution batches.",
      labelNames: ["model_name"],
      registers,
      collect() {
        this.set({ model_name: modelName }, load().running);
      },
    });
    new Gauge({
      name: "vllm:num_requests_waiting",
      help: "Number of requests waiting to be processed.",
      labelNames: ["model_name"],
      registers,
      collect() {
        this.set({ model_name: modelName }, load().waiting);
      },
    });
    this.promptTokens = new Counter({
      name: "vllm:prompt_tokens_total",
      help: "Number of prefill tokens processed.",
      labelNames: ["model_name"],
      registers,
    });
    this.generationTokens = new Counter({
      name: "vllm:generation_tokens_total",
      help: "Number of generation tokens processed.",
      labelNames: ["model_name"],
      registers,
    });
    this.latency = new Histogram({
      name: "vllm:e2e_request_latency_seconds",
      help: "Histogram of end to end request latency in seconds.",
      labelNames: ["model_name"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.success = new Counter({
      name: "vllm:request_success_total",
      help: "Count of successfully processed requests.",
      labelNames: ["model_name", "finished_reason"],
      registers,
    });
    for (const reason of ["stop", "length", "abort"] as const)
      this.success.inc({ model_name: modelName, finished_reason: reason }, 0);
    this.promptTokens.inc({ model_name: modelName }, 0);
    this.generationTokens.inc({ model_name: modelName }, 0);
  }

  /** Counts one finished request. vLLM counts a tool call as `stop`. */
  finished(options: { promptTokens: number; generationTokens: number; seconds: number; reason: FinishedReason }): void {
    const labels = { model_name: this.modelName };
    this.promptTokens.inc(labels, options.promptTokens);
    this.generationTokens.inc(labels, options.generationTokens);
    this.latency.observe(labels, options.seconds);
    this.success.inc({ ...labels, finished_reason: options.reason === "tool_calls" ? "stop" : options.reason }, 1);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
