import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";

interface ServeCliOptions {
  model?: string;
  testModel?: boolean;
  host: string;
  port: string;
  parallel: string;
  ctx?: string;
  threads?: string;
  servedModelName?: string;
  maxWaiting: string;
  prefixCaching: boolean;
  quiet?: boolean;
}

/**
 * `loclab serve --model FILE.gguf`: an OpenAI-compatible server with vLLM's field names over a
 * local GGUF model on CPU (README: A real model). node-llama-cpp is loaded only when this
 * command runs, so no other command pays for it.
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(summaryOf("serve"))
    .option("--model <file>", "the .gguf model file")
    .option(
      "--test-model",
      "serve the test model (SmolLM2-135M-Instruct Q4_1), fetched into the cache on first use; LOCLAB_MODEL overrides",
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port (0 picks a free one)", "8000")
    .option("--parallel <n>", "requests evaluated at once (parallel sequences)", "1")
    .option("--ctx <tokens>", "window per request, in tokens (default: the model's training context, at most 4096)")
    .option("--threads <n>", "CPU threads (default: min(2, cores); more than the cores is much slower)")
    .option("--served-model-name <name>", "the model name clients use (default: the file name without .gguf)")
    .option("--max-waiting <n>", "requests that may wait for a sequence before the server answers 503", "64")
    .option("--no-prefix-caching", "evaluate every prompt from scratch instead of reusing a sequence's cached prefix")
    .option("--quiet", "no line per request")
    .action(async (options: ServeCliOptions) => {
      if ((options.model === undefined) === (options.testModel !== true))
        throw new Error("give --model FILE.gguf or --test-model (one of them)");
      const { ensureTestModel, startModelServer } = await import("@loclab/serve");
      const testModel =
        options.model === undefined
          ? await ensureTestModel({ onProgress: (line) => process.stderr.write(`serve: ${line}\n`) })
          : undefined;
      const server = await startModelServer({
        modelPath: options.model ?? testModel!.path,
        ...(testModel ? { modelSha256: testModel.sha256 } : {}),
        host: options.host,
        port: numericOption("port", options.port, { integer: true, min: 0, max: 65535 }),
        parallel: numericOption("parallel", options.parallel, { integer: true, min: 1, max: 64 }),
        ...(options.ctx !== undefined
          ? { contextSize: numericOption("ctx", options.ctx, { integer: true, min: 16 }) }
          : {}),
        ...(options.threads !== undefined
          ? { threads: numericOption("threads", options.threads, { integer: true, min: 1 }) }
          : {}),
        ...(options.servedModelName !== undefined ? { servedModelName: options.servedModelName } : {}),
        maxWaiting: numericOption("max-waiting", options.maxWaiting, { integer: true, min: 0 }),
        prefixCaching: options.prefixCaching,
        ...(options.quiet ? {} : { onRequest: (line: string) => process.stderr.write(`serve: ${line}\n`) }),
      });
      const { parallel, threads } = server.fingerprint.settings;
      // The first stdout line is the contract for scripts that start a server: the base URL.
      process.stdout.write(`${server.baseURL}\n`);
      process.stderr.write(
        `serve: ${server.modelName} (${server.fingerprint.model.sha256.slice(0, 12)}…, window ${server.fingerprint.model.max_model_len} tokens, ${parallel} parallel, ${threads} threads) on ${server.baseURL}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      process.stderr.write("serve: stopping\n");
      await server.close();
    });
}
