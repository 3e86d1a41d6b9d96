import { SHUFFLE_TEXT_POLICIES as SCHEMA_POLICIES } from "@loclab/schemas";
import {
  leakAudit,
  mapIssueText,
  maskIssuePaths,
  planShuffle,
  projectNames,
  renameProjectNames,
  SHUFFLE_TEXT_POLICIES,
  topLevelPackageNames,
} from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { goldFromPatch } from "@loclab/gold";
import { describe, expect, it } from "vitest";

// The shuffle's text policies and the leak audit on the real issue texts a new user ran
// (SWE-bench Lite: psf__requests-2148, pallets__flask-5063). The file lists are the gold files
// plus each project's package markers, so the mapping has the packages the texts name.
const lite = await loadBenchmark("lite");
const row = (id: string) => {
  const found = lite.instances.find((instance) => instance.instance_id === id);
  if (!found) throw new Error(`${id} is not in Lite`);
  return found;
};
const audit = (id: string, text: string, files: readonly string[]) => {
  const instance = row(id);
  const gold = goldFromPatch(instance.patch, { instanceId: id });
  return leakAudit({
    text,
    instanceId: id,
    repo: instance.repo,
    packages: topLevelPackageNames(files),
    goldFiles: gold.files,
    goldSymbols: gold.symbols.map((symbol) => symbol.name),
  });
};
const CASES = [
  {
    id: "psf__requests-2148",
    files: [
      "requests/__init__.py",
      "requests/models.py",
      "requests/exceptions.py",
      "requests/packages/__init__.py",
      "requests/packages/urllib3/__init__.py",
      "requests/packages/urllib3/response.py",
      "setup.py",
    ],
  },
  { id: "pallets__flask-5063", files: ["src/flask/__init__.py", "src/flask/cli.py", "src/flask/app.py", "setup.py"] },
] as const;

describe("the shuffle's names policy on real issue texts", () => {
  for (const { id, files } of CASES) {
    it(`${id}: layout-only keeps the project's names; names removes them all, and the audit counts 0 of them`, () => {
      const instance = row(id);
      const allFiles = [...new Set([...files, ...goldFromPatch(instance.patch, { instanceId: id }).files])];
      const mapping = planShuffle(allFiles, { seed: 7 });
      const before = mapIssueText(mapping, instance.problem_statement, { policy: "layout-only" });
      const after = mapIssueText(mapping, instance.problem_statement, { policy: "names", repo: instance.repo });
      const name = instance.repo.split("/")[1] as string;
      const left = audit(id, before.text, allFiles);
      // The issue's finding: the project's name survives the layout rewrite (requests 9 times in 2148).
      expect(left.repository + left.packages, id).toBeGreaterThan(0);
      const now = audit(id, after.text, allFiles);
      expect({
        repository: now.repository,
        owner: now.owner,
        packages: now.packages,
        goldPaths: now.goldPaths,
        goldModules: now.goldModules,
      }).toEqual({ repository: 0, owner: 0, packages: 0, goldPaths: 0, goldModules: 0 });
      expect(after.text.toLowerCase()).not.toMatch(new RegExp(`(^|[^a-z0-9])${name}([^a-z0-9]|$)`));
      expect(after.names?.renamed.length).toBeGreaterThan(0);
      // Everything but the renamed spans is the layout-rewritten text, byte for byte.
      let rebuilt = "";
      let cursor = 0;
      for (const renamed of after.names?.renamed ?? []) {
        rebuilt += before.text.slice(cursor, renamed.start) + renamed.replacement;
        cursor = renamed.end;
      }
      expect(rebuilt + before.text.slice(cursor)).toBe(after.text);
    });
  }

  it("requests-2148: the egg folder, a path that names the package and prose each lose the name; the package's word becomes its shuffled folder name", () => {
    const instance = row("psf__requests-2148");
    const mapping = planShuffle(CASES[0].files, { seed: 7 });
    const after = mapIssueText(mapping, instance.problem_statement, { policy: "names", repo: instance.repo });
    const folder = mapping.directories.requests as string;
    expect(after.text).toContain(`site-packages/${folder}-2.3.0-py2.7.egg/`);
    expect(after.text).not.toContain("requests-2.3.0");
    const contexts = new Set(after.names?.renamed.map((renamed) => renamed.context));
    expect(contexts.has("path")).toBe(true);
    expect(contexts.has("prose")).toBe(true);
  });

  it("word boundaries: letters and digits bound a name, `_`, `-`, `.` and `/` do not; inside an identifier it is counted, not renamed", () => {
    const names = [{ name: "flask", sources: ["package" as const], replacement: "d_abc123" }];
    const { text, report } = renameProjectNames(
      "Flask routes; $ flask routes; flask_login, Flask-Login, https://github.com/pallets/flask; FlaskClient",
      names,
    );
    expect(text).toBe(
      "d_abc123 routes; $ d_abc123 routes; d_abc123_login, d_abc123-Login, https://github.com/pallets/d_abc123; FlaskClient",
    );
    expect(report.inIdentifiers).toEqual({ flask: 1 });
    expect(report.renamed.map((renamed) => renamed.context)).toEqual(["prose", "prose", "prose", "prose", "url"]);
  });

  it("project names: the owner and a repository named otherwise than its package get drawn names, stable for the seed; names under 3 characters are left", () => {
    const mapping = planShuffle(["src/_pytest/__init__.py", "src/pytest/__init__.py", "src/py.py", "setup.py"], {
      seed: 3,
    });
    const names = projectNames("pytest-dev/pytest", mapping);
    expect(names.map((name) => name.name).sort()).toEqual(["pytest", "pytest-dev"]);
    expect(names.find((name) => name.name === "pytest")?.sources).toEqual(["package", "repository"]);
    expect(names.find((name) => name.name === "pytest-dev")?.replacement).toMatch(/^p_[a-z0-9]{6}$/);
    expect(projectNames("pytest-dev/pytest", mapping)).toEqual(names);
  });

  it("the text policies agree between the run schemas and the controls", () => {
    expect([...SCHEMA_POLICIES]).toEqual([...SHUFFLE_TEXT_POLICIES]);
  });
});

describe("the leak audit", () => {
  it("counts the instance id, names as words, gold paths, modules, file names and symbols once each", () => {
    const result = leakAudit({
      text: "psf__requests-2148: in requests/models.py (requests.models) models.py calls iter_content; the requests library; iter_contents",
      instanceId: "psf__requests-2148",
      repo: "psf/requests",
      packages: ["requests"],
      goldFiles: ["requests/models.py"],
      goldSymbols: ["Response.iter_content"],
    });
    expect(result).toMatchObject({
      instanceId: 1,
      goldPaths: 1,
      goldModules: 1,
      goldFileNames: 1,
      goldSymbols: 1,
      repository: 1,
      owner: 0,
      packages: 0,
    });
    expect(result.found).toEqual([
      "instanceId:psf__requests-2148",
      "repository:requests",
      "goldPaths:requests/models.py",
      "goldModules:requests.models",
      "goldFileNames:models.py",
      "goldSymbols:iter_content",
    ]);
  });

  it("masking at the default level leaves the gold symbols the issue names (the audit says so); at level symbols they go", () => {
    const instance = row("psf__requests-2148");
    const files = [...CASES[0].files];
    const gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id });
    const modules = maskIssuePaths(instance.problem_statement, { knownFiles: { files }, level: "modules" }).text;
    const auditModules = audit(instance.instance_id, modules, files);
    expect(auditModules.goldPaths + auditModules.goldModules).toBe(0);
    expect(auditModules.goldSymbols).toBeGreaterThan(0);
    const masked = maskIssuePaths(instance.problem_statement, {
      knownFiles: { files },
      level: "symbols",
      symbols: gold.symbols,
    }).text;
    expect(audit(instance.instance_id, masked, files).goldSymbols).toBe(0);
  });
});
