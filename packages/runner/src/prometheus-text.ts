/**
 * The sum of a metric's samples over all its label sets in Prometheus' text exposition format
 * (`name{a="b"} 3` lines; `#` lines are comments), or `undefined` when the text has none.
 * Enough for the gauges a runner reads from vLLM (`vllm:num_requests_waiting`,
 * `vllm:num_requests_running`): one value per served model, summed. Pure.
 *
 * @example metricSum('vllm:num_requests_waiting{model_name="m"} 2\n', "vllm:num_requests_waiting") // 2
 */
export function metricSum(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || !line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== "{" && rest[0] !== " " && rest[0] !== "\t") continue; // a longer name with this prefix
    const afterLabels = rest[0] === "{" ? rest.slice(labelsEnd(rest) + 1) : rest;
    const value = Number(afterLabels.trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) sum = (sum ?? 0) + value;
  }
  return sum;
}

/** The index of the `}` closing the label set that starts `text`, skipping quoted values (which may hold `}`). */
function labelsEnd(text: string): number {
  let quoted = false;
  for (let i = 1; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted && ch === "\\") i += 1;
    else if (ch === '"') quoted = !quoted;
    else if (ch === "}" && !quoted) return i;
  }
  return text.length;
}
