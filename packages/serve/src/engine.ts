import { availableParallelism } from "node:os";
import { basename } from "node:path";
// Types only at the top: node-llama-cpp has top-level await, so a static import would make
// this package impossible to require() (tslab notebooks load packages through require).
import type {
  GbnfJsonSchema,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  Token,
} from "node-llama-cpp";
import { checkModelFile, ModelFileError } from "./model-file.js";
import { SequencePool, type Lease } from "./sequence-pool.js";
import { tokenPieces, type TokenPieces } from "./token-offsets.js";

type NodeLlamaCpp = typeof import("node-llama-cpp");

export interface EngineOptions {
  modelPath: string;
  /** Tokens per sequence (the request window); default the model's training context, at most 4,096. */
  contextSize?: number;
  /** Parallel sequences (requests served at once); default 1. */
  parallel?: number;
  /**
   * CPU threads for evaluation; default min(2, cores). More threads than cores makes llama.cpp
   * spin-wait against itself: on this 2-core machine its default of 4 was about 100× slower.
   */
  threads?: number;
  /** Requests that may wait for a sequence before the server answers 503; default 64. */
  maxWaiting?: number;
  /** Reuse a sequence's cached prefix across requests (vLLM's prefix caching); default true. */
  prefixCaching?: boolean;
}

/** One position's log-probabilities: of the token that is there, and the N most likely. */
export interface PositionLogprobs {
  token: number;
  logprob: number;
  /** 1-based rank of `token` in the distribution. */
  rank: number;
  top: Array<{ token: number; logprob: number }>;
}

export interface SampleOptions {
  temperature: number;
  topP: number;
  /** Same seed, same prompt, same settings → the same tokens. */
  seed: number;
  maxTokens: number;
  grammar?: LlamaGrammar;
  /** Stops when the decoded output contains one of these (the caller trims it). */
  stop?: readonly string[];
  /**
   * Stops when the decoded output is complete by this test (a grammar answer that parses as
   * one JSON value: the grammar itself would allow whitespace after it until max tokens).
   */
  complete?: (text: string) => boolean;
  /** Go on past end-of-generation tokens until max tokens (vLLM's `ignore_eos`, for benchmarks). */
  ignoreEos?: boolean;
  signal?: AbortSignal;
}

export interface SampleResult {
  tokens: number[];
  /** `stop` (end of generation token or a stop string), `length` (max tokens or the window), `abort`. */
  finishReason: "stop" | "length" | "abort";
  /** The stop string that ended it, if any. */
  stoppedBy?: string;
  /** For an abort during the prompt's evaluation: the prompt tokens evaluated (or reused) by then, fewer than the prompt's. */
  promptTokensEvaluated?: number;
}

/** Prompt evaluation block, in tokens: the unit of prefix reuse (see `resetTo`). */
const BLOCK = 64;

/** log p for a probability the engine rounded to 0 (float32 underflow): vLLM's value for masked tokens. */
export const MIN_LOGPROB = -9999;

/**
 * A GGUF model on CPU through node-llama-cpp (llama.cpp prebuilt): tokenization, sampling
 * with a seed, exact per-position log-probabilities, and N parallel sequences behind a bounded
 * queue.
 */
export class LlamaEngine {
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  /** Per sequence: how many leading tokens were evaluated as aligned blocks (reusable). */
  private readonly cleanPrefix = new WeakMap<LlamaContextSequence, number>();

  private constructor(
    private readonly lib: NodeLlamaCpp,
    readonly llama: Llama,
    readonly model: LlamaModel,
    readonly context: LlamaContext,
    readonly pool: SequencePool<LlamaContextSequence>,
    readonly options: Required<Omit<EngineOptions, "contextSize">> & { contextSize: number },
  ) {}

  static async load(options: EngineOptions): Promise<LlamaEngine> {
    await checkModelFile(options.modelPath);
    const threads = options.threads ?? Math.max(1, Math.min(2, availableParallelism()));
    const parallel = options.parallel ?? 1;
    const lib = await import("node-llama-cpp");
    const llama = await lib.getLlama({
      gpu: false,
      build: "never",
      maxThreads: threads,
      logLevel: lib.LlamaLogLevel.error,
      progressLogs: false,
    });
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: options.modelPath });
    } catch (error) {
      throw new ModelFileError(options.modelPath, `llama.cpp could not load it: ${(error as Error).message}`);
    }
    const contextSize = options.contextSize ?? Math.min(model.trainContextSize, 4096);
    if (contextSize > model.trainContextSize) {
      throw new RangeError(
        `--ctx ${contextSize} is larger than the model's training context (${model.trainContextSize} tokens)`,
      );
    }
    // node-llama-cpp sizes the context for all sequences together: ask for N windows.
    const context = await model.createContext({
      contextSize: contextSize * parallel,
      sequences: parallel,
      threads,
      batchSize: Math.min(512, contextSize),
    });
    const sequences = Array.from({ length: parallel }, () => context.getSequence());
    const pool = new SequencePool(sequences, options.maxWaiting ?? 64);
    return new LlamaEngine(lib, llama, model, context, pool, {
      modelPath: options.modelPath,
      contextSize,
      parallel,
      threads,
      maxWaiting: options.maxWaiting ?? 64,
      prefixCaching: options.prefixCaching ?? true,
    });
  }

  /** The name `/v1/models` lists by default: the file name without `.gguf`. */
  get defaultModelName(): string {
    return basename(this.options.modelPath).replace(/\.gguf$/i, "");
  }

  get contextSize(): number {
    return this.options.contextSize;
  }

  get vocabularySize(): number {
    return this.model.fileInfo.metadata.tokenizer.ggml.tokens.length;
  }

  get chatTemplate(): string | undefined {
    const template = this.model.fileInfo.metadata.tokenizer.chat_template;
    return typeof template === "string" && template.length > 0 ? template : undefined;
  }

  get specialTokens(): { bos: string | null; eos: string | null } {
    return { bos: this.model.tokens.bosString, eos: this.model.tokens.eosString };
  }

  /**
   * Tokens of `text`, special-token text (`<|im_start|>`) read as the special token, as Hugging
   * Face tokenizers do. `addSpecialTokens` prepends BOS when the model asks for it (vLLM's
   * completions default; its chat path leaves BOS to the template).
   */
  tokenize(text: string, addSpecialTokens: boolean): number[] {
    const tokens = Array.from(this.model.tokenize(text, true)) as number[];
    const bos = this.model.tokens.bos;
    if (addSpecialTokens && bos !== null && this.model.tokens.shouldPrependBosToken && tokens[0] !== bos)
      tokens.unshift(bos);
    return tokens;
  }

  detokenize(tokens: readonly number[], lastTokens?: readonly number[]): string {
    return this.model.detokenize(tokens as Token[], true, lastTokens as Token[] | undefined);
  }

  pieces(tokens: readonly number[]): TokenPieces {
    return tokenPieces(tokens, (some, last) => this.detokenize(some, last));
  }

  /** One token's own text, for `top_logprobs` keys. */
  tokenText(token: number): string {
    return this.detokenize([token]);
  }

  isEndOfGeneration(token: number): boolean {
    return this.model.isEogToken(token as Token);
  }

  async jsonGrammar(schema: GbnfJsonSchema): Promise<LlamaGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = this.llama.createGrammarForJsonSchema(schema as never) as Promise<LlamaGrammar>;
      this.grammars.set(key, grammar);
      grammar.catch(() => this.grammars.delete(key));
    }
    return grammar;
  }

  /** A sequence for one request, preferring the one whose cache shares the longest prefix with `prompt`. */
  acquire(prompt: readonly number[], signal?: AbortSignal): Promise<Lease<LlamaContextSequence>> {
    return this.pool.acquire({
      signal,
      choose: (free) => {
        let best = 0;
        let bestLength = -1;
        free.forEach((sequence, index) => {
          const length = commonPrefix(sequence.contextTokens as number[], prompt);
          if (length > bestLength) {
            best = index;
            bestLength = length;
          }
        });
        return best;
      },
    });
  }

  /**
   * Log-probabilities of `tokens[i]` given `tokens[0..i)` for every i ≥ `from` (≥ 1), with the
   * `topN` most likely tokens at each position: the softmax of the model's raw logits (no
   * temperature, no truncation), as vLLM reports prompt and sampled logprobs. Evaluated from an
   * empty cache every time, so the same tokens always give the same numbers.
   */
  async logprobs(
    sequence: LlamaContextSequence,
    tokens: readonly number[],
    from: number,
    topN: number,
  ): Promise<PositionLogprobs[]> {
    if (from < 1) throw new RangeError("the first token has no log-probability");
    await sequence.clearHistory();
    this.cleanPrefix.set(sequence, 0);
    if (from >= tokens.length) return [];
    const items = tokens.map((token, index) =>
      index >= from - 1 && index < tokens.length - 1
        ? ([token as Token, { generateNext: { probabilities: true as const } }] as const)
        : (token as Token),
    );
    const evaluated = await sequence.controlledEvaluate(items as never);
    const positions: PositionLogprobs[] = [];
    for (let index = from; index < tokens.length; index++) {
      const distribution = evaluated[index - 1]?.next?.probabilities;
      if (!distribution) throw new Error(`llama.cpp returned no distribution for position ${index}`);
      const token = tokens[index]!;
      let rank = 0;
      let probability = 0;
      let seen = 0;
      const top: Array<{ token: number; logprob: number }> = [];
      // The distribution comes sorted, most likely first.
      for (const [candidate, p] of distribution) {
        seen += 1;
        if (top.length < topN) top.push({ token: candidate, logprob: toLogprob(p) });
        if (candidate === token) {
          rank = seen;
          probability = p;
        }
        if (rank > 0 && top.length >= topN) break;
      }
      positions.push({ token, logprob: toLogprob(probability), rank: rank === 0 ? distribution.size : rank, top });
    }
    return positions;
  }

  /**
   * Samples a continuation of `prompt` on `sequence`. With prefix caching the sequence keeps
   * the longest prefix it already holds and evaluates only the rest.
   */
  async sample(
    sequence: LlamaContextSequence,
    prompt: readonly number[],
    options: SampleOptions,
  ): Promise<SampleResult> {
    // A client that goes away during the prompt's evaluation frees the sequence at the next block.
    const reached = await this.resetTo(sequence, prompt, options.signal);
    if (reached !== true) return { tokens: [], finishReason: "abort", promptTokensEvaluated: reached };
    const kept = sequence.nextTokenIndex;
    const generated: number[] = [];
    const room = this.contextSize - prompt.length;
    const limit = Math.min(options.maxTokens, room);
    if (limit <= 0) return { tokens: [], finishReason: "length" };
    const grammarEvaluationState = options.grammar
      ? new this.lib.LlamaGrammarEvaluationState({ model: this.model, grammar: options.grammar })
      : undefined;
    const iterator = sequence.evaluate(prompt.slice(kept) as Token[], {
      temperature: options.temperature,
      topP: options.topP,
      seed: options.seed,
      grammarEvaluationState,
      yieldEogToken: true,
    });
    let finishReason: SampleResult["finishReason"] = "length";
    let stoppedBy: string | undefined;
    try {
      for await (const token of iterator) {
        if (options.signal?.aborted) {
          finishReason = "abort";
          break;
        }
        if (!options.ignoreEos && this.isEndOfGeneration(token)) {
          finishReason = "stop";
          break;
        }
        generated.push(token);
        if ((options.stop && options.stop.length > 0) || options.complete) {
          const text = this.detokenize(generated);
          stoppedBy = options.stop?.find((stop) => text.includes(stop));
          if (stoppedBy !== undefined || options.complete?.(text)) {
            finishReason = "stop";
            break;
          }
        }
        if (generated.length >= limit) break;
      }
    } finally {
      await iterator.return?.();
    }
    return { tokens: generated, finishReason, ...(stoppedBy !== undefined ? { stoppedBy } : {}) };
  }

  /**
   * Brings `sequence` to the state "prompt evaluated up to its last token" the same way every
   * time, whatever the sequence held before: the prompt is evaluated in blocks aligned to
   * absolute positions (64 tokens), and a cached prefix is reused only in whole blocks that were
   * themselves evaluated as such blocks. llama.cpp's numbers depend on how tokens are split into
   * batches; evaluated this way the split never depends on earlier requests, so the same seed
   * gives the same tokens with and without prefix caching (tokens generated one by one, or
   * evaluated by a logprobs pass, are never reused). Checks `signal` between blocks: true when done; when
   * it aborted, the prompt tokens reached by then (the blocks evaluated so far stay a clean prefix).
   */
  private async resetTo(
    sequence: LlamaContextSequence,
    prompt: readonly number[],
    signal?: AbortSignal,
  ): Promise<true | number> {
    const clean = this.options.prefixCaching ? (this.cleanPrefix.get(sequence) ?? 0) : 0;
    const reusable = Math.min(commonPrefix(sequence.contextTokens as number[], prompt), clean, prompt.length - 1);
    const keep = Math.floor(reusable / BLOCK) * BLOCK;
    if (keep === 0) await sequence.clearHistory();
    else if (keep < sequence.nextTokenIndex)
      await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
    let boundary = keep;
    // The last prompt token is left for the sampling call, which needs its logits.
    while (boundary + BLOCK <= prompt.length - 1) {
      if (signal?.aborted) {
        this.cleanPrefix.set(sequence, boundary);
        return boundary;
      }
      await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(boundary, boundary + BLOCK) as Token[]);
      boundary += BLOCK;
    }
    this.cleanPrefix.set(sequence, boundary);
    return true;
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }
}

function toLogprob(probability: number): number {
  return probability > 0 ? Math.log(probability) : MIN_LOGPROB;
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a[index] === b[index]) index += 1;
  return index;
}
