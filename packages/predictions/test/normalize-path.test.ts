import { describe, expect, it } from "vitest";
import { normalizeRepoPath, normalizeSymbolId } from "../src/index.js";

describe("normalizeRepoPath: rewrites that never depend on the repository", () => {
  it.each([
    ["sklearn/base.py", "sklearn/base.py"],
    ["./sklearn/base.py", "sklearn/base.py"],
    ["././sklearn/base.py", "sklearn/base.py"],
    ["/sklearn/base.py", "sklearn/base.py"],
    ["/./sklearn/base.py", "sklearn/base.py"],
    [".\\sklearn\\base.py", "sklearn/base.py"],
    ["sklearn//utils///validation.py", "sklearn/utils/validation.py"],
    ["  sklearn/base.py \n", "sklearn/base.py"],
    ["c:\\azure\\kms\\conftest.py", "c:/azure/kms/conftest.py"],
    ["./", ""],
    ["", ""],
  ])("%j → %j", (input, expected) => {
    expect(normalizeRepoPath(input)).toBe(expected);
  });

  it("leaves a/ and b/ alone without a file list (a repository may have such a directory)", () => {
    expect(normalizeRepoPath("a/sklearn/base.py")).toBe("a/sklearn/base.py");
    expect(normalizeRepoPath("b/x.py", { repo: "psf/requests" })).toBe("b/x.py");
  });
});

describe("normalizeRepoPath: repository prefixes", () => {
  it("strips owner__name/ whenever the repository is known", () => {
    expect(normalizeRepoPath("psf__requests/requests/api.py", { repo: "psf/requests" })).toBe("requests/api.py");
    expect(normalizeRepoPath("django__django/django/db/models/query.py", { repo: "django/django" })).toBe(
      "django/db/models/query.py",
    );
  });

  it("strips owner/name/ when owner and name differ", () => {
    expect(normalizeRepoPath("psf/requests/requests/api.py", { repo: "psf/requests" })).toBe("requests/api.py");
    expect(normalizeRepoPath("pytest-dev/pytest/src/_pytest/main.py", { repo: "pytest-dev/pytest" })).toBe(
      "src/_pytest/main.py",
    );
  });

  it("does not strip name/ without a file list: requests/ is the package directory of psf/requests", () => {
    expect(normalizeRepoPath("requests/api.py", { repo: "psf/requests" })).toBe("requests/api.py");
  });

  it("the django/django trap: the package directory is itself django/, so nothing is stripped without a file list", () => {
    expect(normalizeRepoPath("django/db/models/query.py", { repo: "django/django" })).toBe("django/db/models/query.py");
    // owner/name/ and name/ + django/… read the same; without files we cannot tell, so leave it.
    expect(normalizeRepoPath("django/django/db/models/query.py", { repo: "django/django" })).toBe(
      "django/django/db/models/query.py",
    );
  });

  it("with a file list, a known path is never shortened, and a prefix goes only when the list says so", () => {
    const knownFiles = new Set(["django/db/models/query.py", "django/__init__.py", "a/real.py"]);
    const django = { repo: "django/django", knownFiles };
    expect(normalizeRepoPath("django/db/models/query.py", django)).toBe("django/db/models/query.py");
    expect(normalizeRepoPath("django/django/db/models/query.py", django)).toBe("django/db/models/query.py");
    expect(normalizeRepoPath("django/django/django/db/models/query.py", django)).toBe("django/db/models/query.py");
    expect(normalizeRepoPath("a/django/db/models/query.py", django)).toBe("django/db/models/query.py");
    expect(normalizeRepoPath("b/django/__init__.py", django)).toBe("django/__init__.py");
    expect(normalizeRepoPath("a/real.py", django)).toBe("a/real.py");
    expect(normalizeRepoPath("a/django__django/django/__init__.py", django)).toBe("django/__init__.py");
    // Unknown even after stripping (a hallucinated file): only the unambiguous prefix goes.
    expect(normalizeRepoPath("django__django/django/nope.py", django)).toBe("django/nope.py");
    expect(normalizeRepoPath("a/django/nope.py", django)).toBe("a/django/nope.py");
    expect(normalizeRepoPath("django/nope.py", django)).toBe("django/nope.py");
  });

  it("strips name/ when the file list knows the rest and not the whole", () => {
    const knownFiles = new Set(["requests/api.py", "setup.py"]);
    expect(normalizeRepoPath("requests/requests/api.py", { repo: "psf/requests", knownFiles })).toBe("requests/api.py");
    expect(normalizeRepoPath("requests/setup.py", { repo: "psf/requests", knownFiles })).toBe("setup.py");
    expect(normalizeRepoPath("requests/api.py", { repo: "psf/requests", knownFiles })).toBe("requests/api.py");
  });
});

describe("normalizeSymbolId", () => {
  it("normalizes the path part and keeps the name as written", () => {
    expect(normalizeSymbolId("./astropy/io/fits/fitsrec.py:FITS_rec._convert_ascii")).toBe(
      "astropy/io/fits/fitsrec.py:FITS_rec._convert_ascii",
    );
    expect(normalizeSymbolId("psf__requests/requests/api.py:request", { repo: "psf/requests" })).toBe(
      "requests/api.py:request",
    );
    expect(normalizeSymbolId("a.py:A. f ")).toBe("a.py:A. f ");
    expect(normalizeSymbolId(".\\pkg\\m.py")).toBe("pkg/m.py");
  });
});
