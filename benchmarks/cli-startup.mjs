// Benchmark (issue 18, row 1): the CLI's start-up, whole process. `loclab mcnemar --b 5 --c 1
// --json` and `loclab --help` against `node -e 0` (the floor: Node's own start) and python3
// computing the same exact McNemar p with math.comb (the obvious alternative), interleaved;
// the answers are checked equal (p and mid-p). Goal: mcnemar and --help under 0.15 s, about
// 2× `node -e 0`. Figures go to results/bench-cli-startup.json; nothing is asserted.
//
//   node benchmarks/cli-startup.mjs            (BENCH_ROUNDS=15 by default)
import { join } from "node:path";
import { interleaved, pythonExecutable, repoRoot, report, round } from "./lib/measure.mjs";

const bin = join(repoRoot, "packages", "cli", "bin", "loclab.mjs");
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const PYTHON = `import json, math
b, c = 5, 1
n = b + c
k = min(b, c)
tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
p = min(1.0, 2 * tail)
mid = p - math.comb(n, k) / 2 ** n
print(json.dumps({"b": b, "c": c, "p": p, "midP": mid}))`;
const expected = { b: 5, c: 1, p: 0.21875, midP: 0.125 };
const sameAnswer = (stdout, status, name) => {
  const answer = JSON.parse(stdout);
  if (
    status !== 0 ||
    answer.b !== 5 ||
    answer.c !== 1 ||
    Math.abs(answer.p - expected.p) > 1e-12 ||
    Math.abs(answer.midP - expected.midP) > 1e-12
  ) {
    throw new Error(`${name} gave ${stdout.trim()} (exit ${status}), expected ${JSON.stringify(expected)}`);
  }
};
const times = interleaved(
  [
    {
      name: "loclab mcnemar",
      file: process.execPath,
      args: [bin, "mcnemar", "--b", "5", "--c", "1", "--json"],
      check: sameAnswer,
    },
    {
      name: "loclab --help",
      file: process.execPath,
      args: [bin, "--help"],
      check: (stdout, status) => {
        if (status !== 0 || !stdout.includes("mcnemar")) throw new Error("loclab --help failed");
      },
    },
    { name: "node -e 0", file: process.execPath, args: ["-e", "0"] },
    { name: "python3 math.comb", file: pythonExecutable(), args: ["-c", PYTHON], check: sameAnswer },
  ],
  { rounds },
);
const mcnemar = times["loclab mcnemar"].medianMs;
report("cli-startup", {
  row: "`loclab mcnemar --b 5 --c 1 --json` whole process",
  loclab: { ms: mcnemar, helpMs: times["loclab --help"].medianMs },
  alternative: { name: "python3 with math.comb", ms: times["python3 math.comb"].medianMs },
  floor: { name: "node -e 0", ms: times["node -e 0"].medianMs },
  ratio: round(mcnemar / times["python3 math.comb"].medianMs, 2),
  ratioToNodeFloor: round(mcnemar / times["node -e 0"].medianMs, 2),
  goal: "mcnemar and --help under 150 ms (about 2× node -e 0)",
  times,
});
