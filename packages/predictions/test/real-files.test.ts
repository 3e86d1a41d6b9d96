import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import type { Prediction } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import {
  type PredictionFormat,
  type ReadPredictionsResult,
  readBlagentGold,
  readCosilGold,
  readLocAgentGold,
  readPredictions,
} from "../src/index.js";

// The shared data folder (data README, "localization/" rows); read in place, never copied.
const dataDir = resolveDataDir();
const localization = (file: string) => join(dataDir, "localization", file);
const idsOf = (file: string) =>
  readFileSync(join(dataDir, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { instance_id: string }).instance_id);
const liteIds = idsOf("swebench/lite.jsonl");
const verifiedIds = idsOf("swebench/verified.jsonl");

/**
 * Every predictions file of the data folder with its format, its split and what reading it
 * must report. Row counts and the counts of removed duplicates, empty file rankings and
 * ignored `found_related_locs` lines were checked independently against the raw JSON
 * (a Python pass over the same files).
 */
const FILES: {
  file: string;
  format: PredictionFormat;
  split: "lite" | "verified";
  rows: number;
  duplicatesRemoved: number;
  emptyFileRankings: number;
  ignoredLocKinds: Record<string, number>;
  pathsNormalized: number;
}[] = [
  {
    file: "locagent/claude35-lite.jsonl",
    format: "locagent",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 0,
    emptyFileRankings: 0,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "blagent/claude-4-6-lite.jsonl",
    format: "blagent",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 0,
    emptyFileRankings: 0,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "blagent/gpt-oss-lite.jsonl",
    format: "blagent",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 0,
    emptyFileRankings: 0,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "blagent/rag-code-chunking-lite.jsonl",
    format: "blagent",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 97,
    emptyFileRankings: 1,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/afl-loc-qwen-coder-14b-func.jsonl",
    format: "agentless",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 25,
    emptyFileRankings: 1,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/afl-loc-qwen-coder-32b-func.jsonl",
    format: "agentless",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 9,
    emptyFileRankings: 0,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/afl-loc-qwen-coder-7b-func.jsonl",
    format: "agentless",
    split: "lite",
    rows: 296,
    duplicatesRemoved: 50,
    emptyFileRankings: 1,
    ignoredLocKinds: { "<no name>": 1 },
    pathsNormalized: 0,
  },
  {
    file: "cosil/locagent-locagent-qwen-coder-32b-func.jsonl",
    format: "agentless",
    split: "lite",
    rows: 298,
    duplicatesRemoved: 0,
    emptyFileRankings: 34,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/results-round-file-level-qwen2.5-32b-loc-outputs.jsonl",
    format: "agentless",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 69,
    emptyFileRankings: 6,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/results-round-func-level-qwen2.5-32b-3-loc-qwen2.5-32b-func.jsonl",
    format: "agentless",
    split: "lite",
    rows: 300,
    duplicatesRemoved: 9,
    emptyFileRankings: 6,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/verified-afl-afl-qwen-coder-14b-func.jsonl",
    format: "agentless",
    split: "verified",
    rows: 500,
    duplicatesRemoved: 5,
    emptyFileRankings: 1,
    ignoredLocKinds: { "<no name>": 1 },
    pathsNormalized: 0,
  },
  {
    file: "cosil/verified-afl-afl-qwen-coder-32b-func.jsonl",
    format: "agentless",
    split: "verified",
    rows: 500,
    duplicatesRemoved: 19,
    emptyFileRankings: 5,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  {
    file: "cosil/verified-afl-afl-qwen-coder-7b-func.jsonl",
    format: "agentless",
    split: "verified",
    rows: 500,
    duplicatesRemoved: 27,
    emptyFileRankings: 0,
    ignoredLocKinds: { variable: 1 },
    pathsNormalized: 0,
  },
  {
    file: "cosil/verified-agentless-agentless-qwen-coder-32b-func.jsonl",
    format: "agentless",
    split: "verified",
    rows: 488,
    duplicatesRemoved: 102,
    emptyFileRankings: 0,
    ignoredLocKinds: { variable: 83 },
    pathsNormalized: 0,
  },
  {
    file: "cosil/verified-locagent-locagent-qwen-coder-32b-func.jsonl",
    format: "agentless",
    split: "verified",
    rows: 498,
    duplicatesRemoved: 0,
    emptyFileRankings: 60,
    ignoredLocKinds: {},
    pathsNormalized: 0,
  },
  // One Windows path (pytest-dev__pytest-5840) gets its backslashes turned.
  {
    file: "cosil/verified-orcaloca-orcaloca-qwen-coder-32b-func.jsonl",
    format: "agentless",
    split: "verified",
    rows: 500,
    duplicatesRemoved: 0,
    emptyFileRankings: 13,
    ignoredLocKinds: {},
    pathsNormalized: 1,
  },
];

const cache = new Map<string, Promise<ReadPredictionsResult>>();
function read(file: string): Promise<ReadPredictionsResult> {
  const entry = FILES.find((candidate) => candidate.file === file);
  if (!entry) throw new Error(`not in FILES: ${file}`);
  let result = cache.get(file);
  if (!result) {
    result = readPredictions(localization(file), {
      format: entry.format,
      instanceIds: entry.split === "lite" ? liteIds : verifiedIds,
    });
    cache.set(file, result);
  }
  return result;
}
async function predictionOf(file: string, instanceId: string): Promise<Prediction> {
  const prediction = (await read(file)).predictions.find((candidate) => candidate.instanceId === instanceId);
  if (!prediction) throw new Error(`${file} has no prediction for ${instanceId}`);
  return prediction;
}

describe("every predictions file of the data folder", () => {
  it.each(FILES)("$file reads cleanly with the expected counts", async (entry) => {
    const { predictions, report } = await read(entry.file);
    expect(report.skipped).toEqual([]);
    expect(report.records).toBe(entry.rows);
    expect(predictions).toHaveLength(entry.rows);
    expect(report.duplicateInstanceIds).toEqual([]);
    expect(report.unknownInstanceIds).toEqual([]);
    expect(report.duplicatesRemoved).toBe(entry.duplicatesRemoved);
    expect(report.emptyFileRankings).toBe(entry.emptyFileRankings);
    expect(report.ignoredLocKinds).toEqual(entry.ignoredLocKinds);
    expect(report.pathsNormalized).toBe(entry.pathsNormalized);
    expect(report.emptyEntriesDropped).toBe(0);
    for (const prediction of predictions) {
      expect(new Set(prediction.files).size).toBe(prediction.files.length);
      // None of these localizers gives line spans (no `line:` entries in the files).
      expect(prediction.locations).toEqual([]);
    }
  });
});

describe("spot checks against the raw rows", () => {
  it("AFL (CoSIL) 32b, astropy__astropy-6938: files as ranked, functions in found_related_locs order", async () => {
    expect(await predictionOf("cosil/afl-loc-qwen-coder-32b-func.jsonl", "astropy__astropy-6938")).toEqual({
      instanceId: "astropy__astropy-6938",
      files: [
        "astropy/io/fits/fitsrec.py",
        "astropy/io/fits/column.py",
        "astropy/io/fits/header.py",
        "astropy/io/fits/file.py",
      ],
      functions: [
        "astropy/io/fits/fitsrec.py:FITS_rec._convert_ascii",
        "astropy/io/fits/fitsrec.py:FITS_rec._convert_other",
        "astropy/io/fits/column.py:_convert_ascii_format",
        "astropy/io/fits/column.py:Column._convert_format",
        "astropy/io/fits/column.py:_AsciiColumnFormat.from_recformat",
      ],
      locations: [],
    });
  });

  it("AFL 7b, matplotlib__matplotlib-24149: a repeated function is dropped, 'class: Axes.function: bar' reads as Axes.function", async () => {
    const prediction = await predictionOf("cosil/afl-loc-qwen-coder-7b-func.jsonl", "matplotlib__matplotlib-24149");
    expect(prediction.functions).toEqual([
      "lib/matplotlib/axes/_axes.py:_convert_dx",
      "lib/matplotlib/axes/_axes.py:Axes.function",
      "lib/matplotlib/cbook/__init__.py:_safe_first_finite",
      "lib/matplotlib/cbook/__init__.py:_combine_masks",
    ]);
  });

  it("Agentless (verified), django__django-11138: variables are not ranked, classes are", async () => {
    const prediction = await predictionOf(
      "cosil/verified-agentless-agentless-qwen-coder-32b-func.jsonl",
      "django__django-11138",
    );
    expect(prediction.files).toEqual([
      "django/db/backends/mysql/operations.py",
      "django/db/backends/mysql/compiler.py",
      "django/db/models/lookups.py",
      "django/utils/timezone.py",
      "django/conf/global_settings.py",
    ]);
    expect(prediction.functions).toHaveLength(5 + 29);
    expect(prediction.functions?.slice(0, 6)).toEqual([
      "django/db/backends/mysql/operations.py:_convert_field_to_tz",
      "django/db/backends/mysql/operations.py:datetime_cast_date_sql",
      "django/db/backends/mysql/operations.py:datetime_cast_time_sql",
      "django/db/backends/mysql/operations.py:datetime_extract_sql",
      "django/db/backends/mysql/operations.py:datetime_trunc_sql",
      "django/db/models/lookups.py:Lookup",
    ]);
    expect(prediction.functions?.at(-1)).toBe("django/db/models/lookups.py:YearLte");
    expect(prediction.functions?.some((id) => id.startsWith("django/conf/global_settings.py:"))).toBe(false);
  });

  it("LocAgent via CoSIL, django__django-14382: functions of files outside found_files are kept, in order", async () => {
    const prediction = await predictionOf("cosil/locagent-locagent-qwen-coder-32b-func.jsonl", "django__django-14382");
    expect(prediction.files).toEqual([
      "django/core/management/templates.py",
      "django/core/management/utils.py",
      "django/core/management/base.py",
      "django/conf/__init__.py",
      "django/__init__.py",
    ]);
    expect(prediction.functions).toEqual([
      "django/core/serializers/python.py:Serializer.getvalue",
      "django/core/management/templates.py:TemplateCommand.handle",
      "django/core/management/utils.py:handle_extensions",
      "django/core/management/base.py:BaseCommand.add_arguments",
      "django/core/management/base.py:BaseCommand.handle",
      "django/__init__.py:setup",
    ]);
  });

  it("OrcaLoca, pytest-dev__pytest-5840: a Windows path is turned, and an empty text gives no function", async () => {
    expect(
      await predictionOf("cosil/verified-orcaloca-orcaloca-qwen-coder-32b-func.jsonl", "pytest-dev__pytest-5840"),
    ).toEqual({
      instanceId: "pytest-dev__pytest-5840",
      files: ["c:/azure/kms/componenttest/python/pisys/conftest.py"],
      functions: [],
      locations: [],
    });
  });

  it("file-level run: no found_related_locs, so no functions", async () => {
    const prediction = await predictionOf(
      "cosil/results-round-file-level-qwen2.5-32b-loc-outputs.jsonl",
      "astropy__astropy-12907",
    );
    expect(prediction).toEqual({
      instanceId: "astropy__astropy-12907",
      files: [
        "astropy/modeling/separable.py",
        "astropy/modeling/core.py",
        "astropy/modeling/models.py",
        "astropy/modeling/utils.py",
        "astropy/io/misc/pickle_helpers.py",
      ],
      locations: [],
    });
  });

  it("BLAgent rag-code-chunking, astropy__astropy-14182: the repeated rst.py keeps its first rank", async () => {
    expect((await predictionOf("blagent/rag-code-chunking-lite.jsonl", "astropy__astropy-14182")).files).toEqual([
      "astropy/io/ascii/rst.py",
      "astropy/io/ascii/fixed_width.py",
      "astropy/io/ascii/core.py",
      "astropy/table/connect.py",
      "astropy/io/ascii/basic.py",
      "astropy/io/ascii/latex.py",
      "astropy/io/ascii/ecsv.py",
      "astropy/io/ascii/qdp.py",
      "astropy/io/fits/scripts/fitsheader.py",
    ]);
  });

  it("LocAgent, django__django-11099: files, modules and entities as written", async () => {
    expect(await predictionOf("locagent/claude35-lite.jsonl", "django__django-11099")).toEqual({
      instanceId: "django__django-11099",
      files: [
        "django/contrib/auth/validators.py",
        "django/contrib/auth/migrations/0001_initial.py",
        "django/contrib/auth/migrations/0007_alter_validators_add_error_messages.py",
        "django/contrib/auth/models.py",
      ],
      modules: [
        "django/contrib/auth/validators.py:ASCIIUsernameValidator",
        "django/contrib/auth/validators.py:UnicodeUsernameValidator",
      ],
      functions: [
        "django/contrib/auth/validators.py:ASCIIUsernameValidator",
        "django/contrib/auth/validators.py:UnicodeUsernameValidator",
      ],
      locations: [],
    });
  });

  it("reports ids outside the given benchmark and still returns their predictions", async () => {
    const firstTen = liteIds.slice(0, 10);
    const { predictions, report } = await readPredictions(localization("blagent/claude-4-6-lite.jsonl"), {
      format: "blagent",
      instanceIds: firstTen,
    });
    expect(predictions).toHaveLength(300);
    expect(report.unknownInstanceIds).toHaveLength(290);
    expect(report.unknownInstanceIds[0]).toBe(liteIds[10]);
  });
});

describe("the peers' gold", () => {
  it("BLAgent: rankings and gold reproduce the README's hit counts (Acc@1 0.8667, Acc@10 0.9533 of 300)", async () => {
    const gold = await readBlagentGold(localization("blagent/claude-4-6-lite.jsonl"));
    expect(gold.size).toBe(300);
    expect(gold.get("astropy__astropy-12907")).toBe("astropy/modeling/separable.py");
    const expected: Record<string, [number, number]> = {
      "blagent/claude-4-6-lite.jsonl": [260, 286],
      "blagent/gpt-oss-lite.jsonl": [236, 283],
      "blagent/rag-code-chunking-lite.jsonl": [200, 240],
    };
    for (const [file, [atOne, atTen]] of Object.entries(expected)) {
      const fileGold = await readBlagentGold(localization(file));
      const { predictions } = await read(file);
      const hitsWithin = (k: number) =>
        predictions.filter((p) => p.files.slice(0, k).includes(fileGold.get(p.instanceId) ?? "")).length;
      expect([hitsWithin(1), hitsWithin(10)]).toEqual([atOne, atTen]);
    }
  });

  it("LocAgent: gold from gt_file_changes, duplicates kept as LocAgent counts them", async () => {
    const gold = await readLocAgentGold(localization("locagent/claude35-lite.jsonl"));
    expect(gold.size).toBe(300);
    expect(gold.get("django__django-14787")).toEqual({
      files: ["django/utils/decorators.py"],
      modules: ["django/utils/decorators.py:_multi_decorate"],
      functions: ["django/utils/decorators.py:_multi_decorate"],
    });
    expect(gold.get("django__django-11019")?.modules).toEqual([
      "django/forms/widgets.py:Media",
      "django/forms/widgets.py:Media",
      "django/forms/widgets.py:Media",
    ]);
    const withRepeatedModule = [...gold.values()].filter((g) => new Set(g.modules).size !== g.modules.length).length;
    expect(withRepeatedModule).toBe(24);
    expect([...gold.values()].filter((g) => g.functions.length === 0).length).toBe(3);
  });

  it("CoSIL: gt-lite and gt-verified, de-duplicated, a bare string read as one entry", async () => {
    const lite = await readCosilGold(localization("cosil/gt-lite.json"));
    const verified = await readCosilGold(localization("cosil/gt-verified.json"));
    expect([lite.size, verified.size]).toEqual([300, 500]);
    expect(lite.get("astropy__astropy-12907")).toEqual(["astropy/modeling/separable.py::_cstack"]);
    expect(lite.get("sympy__sympy-18698")).toEqual(["sympy/polys/polytools.py::_symbolic_factor_list"]);
    expect(lite.get("django__django-10914")).toEqual(["django/conf/global_settings.py"]);
    expect(verified.get("sympy__sympy-23950")).toEqual(["sympy/sets/contains.py::Contains.as_set"]);
  });
});
