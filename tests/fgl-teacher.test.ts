import { join } from "node:path";
import {
  listTrajectories,
  readTrajectory,
  readTrajectoryManifest,
  REAL_TRAJECTORY_RUNS,
  type RunFormat,
} from "@loclab/analysis";
import { loadBenchmark } from "@loclab/datasets";
import { candidatesFromTrajectories, isEdit, type TeacherLocalization, teacherLocalization } from "@loclab/fgl";
import { beforeAll, describe, expect, it } from "vitest";
import { dataDir } from "./helpers.js";

// Teacher localizations from the four real runs in shared/data/trajectories (docs/definitions.md
// §5), on their 41 common tasks. The strongest check needs no checkout: three agents read the
// same files at the same base commits, so wherever two of them saw the same line of the same
// file, the texts recognised for that line number must be equal.

const teachers = new Map<string, TeacherLocalization[]>();
let ids: string[];
beforeAll(async () => {
  ids = (await readTrajectoryManifest(dataDir)).core_instance_set.ids;
  for (const run of REAL_TRAJECTORY_RUNS) {
    const entries = (await listTrajectories(join(dataDir, "trajectories", run.name), run.format as RunFormat)).filter(
      (entry) => ids.includes(entry.instanceId),
    );
    const list: TeacherLocalization[] = [];
    for (const entry of entries)
      list.push(await teacherLocalization(await readTrajectory(entry.path, run.format as RunFormat)));
    teachers.set(run.name, list);
  }
});

describe("teacher localizations from the real trajectories", () => {
  it("every run gives a teacher for each of the 41 tasks, and the cut is an edit of the trajectory", async () => {
    for (const run of REAL_TRAJECTORY_RUNS) {
      const list = teachers.get(run.name)!;
      expect(list.map((t) => t.instanceId).sort()).toEqual([...ids].sort());
      for (const teacher of list) {
        // Every read comes from a step before the cut.
        for (const read of teacher.observed) expect(read.step).toBeLessThan(teacher.stepsBeforeCut);
      }
    }
    // mini-swe-agent and SWE-agent edit inside the trajectory; AutoCodeRover writes its patch after its searches.
    expect(teachers.get("mini-swe-agent_deepseek-chat_lite")!.every((t) => t.cutStep !== null)).toBe(true);
    expect(teachers.get("autocoderover_gpt4_lite")!.every((t) => t.cutStep === null)).toBe(true);
  });

  it("the same line of the same file reads the same in every agent's observations (8,000+ lines, no disagreement)", () => {
    const seen = new Map<string, { text: string; run: string }>();
    let agree = 0;
    const disagree: string[] = [];
    for (const [run, list] of teachers) {
      for (const teacher of list) {
        for (const read of teacher.observed) {
          for (const [line, text] of read.lines ?? []) {
            const key = `${teacher.instanceId}|${read.path}|${line}`;
            const first = seen.get(key);
            if (!first) seen.set(key, { text, run });
            else if (first.run !== run) {
              if (first.text === text) agree += 1;
              else
                disagree.push(
                  `${key}: ${JSON.stringify(first.text)} (${first.run}) vs ${JSON.stringify(text)} (${run})`,
                );
            }
          }
        }
      }
    }
    expect(disagree).toEqual([]);
    expect(agree).toBeGreaterThan(8000);
  });

  it("django__django-11099 by hand: what each agent read before its first edit", () => {
    const of = (run: string) => teachers.get(run)!.find((t) => t.instanceId === "django__django-11099")!;
    // SWE-agent opened the 25-line validators.py (its window showed lines 1-25), then edited line 10.
    const swe = of("swe-agent_gpt4_lite");
    expect(swe.reads).toEqual([{ path: "django/contrib/auth/validators.py", startLine: 1, endLine: 25, role: "read" }]);
    expect(swe.cutStep).toBe(2);
    // mini-swe-agent (gemini) ran `cat ./django/contrib/auth/validators.py` at step 2 and `sed -i` on it at step 5.
    const gemini = of("mini-swe-agent_gemini-3-pro_verified");
    expect(gemini.cutStep).toBe(5);
    expect(gemini.reads).toEqual([
      { path: "django/contrib/auth/validators.py", startLine: 1, endLine: 25, role: "read" },
    ]);
    expect(gemini.recognisedBy).toEqual({ cat: 1 });
    // deepseek overwrote the file with `cat > … << 'EOF'` at step 18; `cp` to a backup before it is no edit.
    const deepseek = of("mini-swe-agent_deepseek-chat_lite");
    expect(deepseek.cutStep).toBe(18);
    // The edited code: each hunk's pre-image lines of the agent's own final patch (two regexes changed).
    expect(gemini.edits.map((e) => [e.path, e.startLine, e.endLine])).toEqual([
      ["django/contrib/auth/validators.py", 7, 13],
      ["django/contrib/auth/validators.py", 17, 23],
    ]);
  });

  it("AutoCodeRover's reads are its search results with code; without a checkout their lines are unresolved, by name", () => {
    const acr = teachers.get("autocoderover_gpt4_lite")!;
    const counts: Record<string, number> = {};
    for (const teacher of acr)
      for (const [via, n] of Object.entries(teacher.recognisedBy)) counts[via] = (counts[via] ?? 0) + n;
    expect(Object.keys(counts).sort()).toEqual([
      "search_class",
      "search_code",
      "search_code_in_file",
      "search_method",
      "search_method_in_class",
      "search_method_in_file",
    ]);
    const one = acr.find((t) => t.instanceId === "django__django-11099")!;
    expect(one.observed[0]).toMatchObject({
      path: "django/contrib/auth/validators.py",
      symbol: "ASCIIUsernameValidator",
      via: "search_class",
    });
    expect(one.observed[0]!.code).toMatch(/^class ASCIIUsernameValidator\(validators\.RegexValidator\):/);
    expect(one.unresolved[0]!.reason).toBe(
      "search_class: needs the file at base commit to know its lines (no checkout given)",
    );
  });

  it("candidatesFromTrajectories: teacher, variants, ≤ 8 locations, one teacher per task, code from the observations", async () => {
    const lite = await loadBenchmark("lite");
    const { tasks, problems } = await candidatesFromTrajectories({
      dir: join(dataDir, "trajectories", "mini-swe-agent_deepseek-chat_lite"),
      format: "mini-swe-agent",
      instances: new Map(lite.instances.map((row) => [row.instance_id, row])),
      only: new Set(ids),
    });
    expect(problems).toEqual([]);
    expect(tasks).toHaveLength(41);
    for (const task of tasks) {
      expect(task.candidates.filter((c) => c.teacher)).toHaveLength(1);
      expect(task.candidates.every((c) => c.locations.length >= 1 && c.locations.length <= 8)).toBe(true);
      expect(new Set(task.candidates.map((c) => c.id)).size).toBe(task.candidates.length);
      expect(task.code.kind).toBe("observed");
    }
    const perTask = tasks.reduce((n, t) => n + t.candidates.length, 0) / tasks.length;
    expect(perTask).toBeGreaterThan(3);
  });
});

describe("isEdit on real commands", () => {
  it("SWE-agent's edit, mini-swe-agent's sed -i and here-document rewrites of a patched file", () => {
    expect(
      isEdit(
        { name: "bash", arguments: { command: "cat > ./django/contrib/auth/validators.py << 'EOF'\nimport re\nEOF" } },
        ["django/contrib/auth/validators.py"],
      ),
    ).toBe(true);
    expect(
      isEdit(
        {
          name: "bash",
          arguments: { command: "cp ./django/contrib/auth/validators.py ./django/contrib/auth/validators.py.backup" },
        },
        ["django/contrib/auth/validators.py"],
      ),
    ).toBe(false);
  });
});
