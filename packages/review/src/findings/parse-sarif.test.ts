import { describe, expect, it } from "vitest";
import { hostileMessage, readOutput, repeatTo } from "./fixtures/hostile-output.js";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio } from "./fixtures/time-ratio.js";
import { parseSarif } from "./parse-sarif.js";
import { MAX_FINDING_TEXT } from "./sanitise-output.js";

const context = { helper: "scan" };

const log = (result: unknown, run: Record<string, unknown> = {}) =>
  JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "t" } }, ...run, results: [result] }] });
const at = (uri: string, extra: Record<string, unknown> = {}) => ({
  message: { text: "m" },
  locations: [{ physicalLocation: { artifactLocation: { uri, ...extra }, region: { startLine: 2 } } }],
});

describe("parseSarif", () => {
  it("reads CodeQL's own output, whose rules are in a query pack's tool extension", () => {
    // A real log (fixtures/SOURCES.md): results name their rule by `ruleId`, `rule.id` and
    // `rule.index` into `tool.extensions[18]` (codeql/javascript-queries); the driver has no rules.
    const outcome = parseSarif(readFixture("codeql-extensions.sarif"), { helper: "scan", toolAsSource: true });
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings.map(({ path, line, severity, rule, helper }) => ({ path, line, severity, rule, helper }))).toEqual([
      // `error` is the extension rule's defaultConfiguration: the driver's rule would give `warning`.
      { path: "src/Logger.ts", line: 42, severity: "error", rule: "js/clear-text-logging", helper: "CodeQL" },
      { path: "src/HttpHandler.ts", line: 75, severity: "warning", rule: "js/insufficient-password-hash", helper: "CodeQL" },
      { path: "src/utils/SignatureHelper.ts", line: 53, severity: "warning", rule: "js/insufficient-password-hash", helper: "CodeQL" },
      { path: "src/utils/passwordValidationUtils.ts", line: 8, severity: "warning", rule: "js/overly-large-range", helper: "CodeQL" },
      { path: "src/HttpHandler.ts", line: 75, severity: "warning", rule: "js/weak-cryptographic-algorithm", helper: "CodeQL" },
    ]);
    // Without toolAsSource (a helper's output) the findings are the helper's.
    expect(parseSarif(readFixture("codeql-extensions.sarif"), context).findings.every((finding) => finding.helper === "scan")).toBe(true);
  });

  it("reads a SARIF 2.1.0 log with base ids, artifact indexes, rule defaults, pass and suppressed results", () => {
    const outcome = parseSarif(readFixture("semgrep-like.sarif"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "/work/src/app.py",
        line: 12,
        endLine: 14,
        column: 5,
        severity: "error",
        message: "Avoid eval() on untrusted input.",
        rule: "py.no-eval",
        helper: "scan",
      },
      {
        path: "/work/src/lib/util.py",
        line: 3,
        endLine: null,
        column: null,
        severity: "notice",
        message: "TODO left in code.",
        rule: "py.todo",
        helper: "scan",
      },
      {
        path: "/work/docs/my notes.py",
        line: null,
        endLine: null,
        column: null,
        severity: "warning",
        message: "File name has a space.",
        rule: "py.style",
        helper: "scan",
      },
      { path: "tests/test_app.py", line: 7, endLine: null, column: 1, severity: "warning", message: "Unused variable 'x'.", rule: "py.unused", helper: "scan" },
    ]);
  });

  it.each([
    [{ level: "error" }, undefined, "error"],
    [{ level: "note" }, undefined, "notice"],
    [{ level: "none" }, undefined, "notice"],
    [{}, undefined, "warning"],
    [{ level: "note" }, { note: "error" }, "error"],
    [{ level: "error", ruleId: "R1" }, { R1: "notice", error: "warning" }, "notice"],
    [{ ruleId: "constructor" }, { default: "error" }, "error"],
  ] as const)("maps %j with map %j to %s", (fields, map, expected) => {
    const outcome = parseSarif(log({ ...at("a.py"), ...fields }), { helper: "scan", severity: map });
    expect(outcome.findings[0]?.severity).toBe(expected);
  });

  it.each([
    [[{ kind: "inSource" }], false],
    [[{ kind: "external", status: "accepted" }], false],
    [[{ kind: "external", status: "underReview" }], true],
    [[{ kind: "external", status: "rejected" }], true],
    [[], true],
  ])("with suppressions %j, keeps the result: %s", (suppressions, kept) => {
    expect(parseSarif(log({ ...at("a.py"), suppressions }), context).findings).toHaveLength(kept ? 1 : 0);
  });

  it.each([
    ["file:///work/a.py", {}, "/work/a.py"],
    ["file://localhost/work/a.py", {}, "/work/a.py"],
    ["a%2Fb.py", {}, "a/b.py"],
    ["a.py", { uriBaseId: "%SRCROOT%" }, "a.py"],
    ["../../etc/passwd", { uriBaseId: "ROOT" }, "/work/../../etc/passwd"],
  ])("turns the URI %s %j into the path %s", (uri, extra, path) => {
    const outcome = parseSarif(log(at(uri, extra), { originalUriBaseIds: { ROOT: { uri: "file:///work/" } } }), context);
    expect(outcome.findings[0]?.path).toBe(path);
  });

  it.each([
    [log(at("https://example.com/a.py")), 'runs[0].results[0]: URI "https://example.com/a.py" is not a file URI'],
    [log(at("file://evil.example/a.py")), 'runs[0].results[0]: URI "file://evil.example/a.py" names another host'],
    [log(at("a%E0%A4%A.py")), 'runs[0].results[0]: URI "a%E0%A4%A.py" has a malformed percent-escape'],
    [log(at("a.py", { uriBaseId: "A" }), { originalUriBaseIds: { A: { uri: "x/", uriBaseId: "A" } } }), "runs[0].results[0]: uriBaseId chain is deeper than 8"],
    [log({ ...at("a.py"), level: "critical" }), 'runs[0].results[0]: level "critical" is not a SARIF level; reported as a warning'],
    [log({ ...at("a.py"), message: { markdown: "**m**" } }), "runs[0].results[0]: has no message"],
    [log(7), "runs[0].results[0] is not an object"],
    [JSON.stringify({ runs: [{ results: {} }] }), "runs[0].results is not an array"],
    [JSON.stringify({ version: "2.1.0" }), "output is not a SARIF log: `runs` is not an array"],
  ])("reports %s", (output, problem) => {
    expect(parseSarif(output, context).problems).toEqual([problem]);
  });
});

describe("parseSarif on real logs", () => {
  it("reads a result whose text is given by message.id and arguments (SARIF Multitool)", () => {
    const outcome = parseSarif(readFixture("sarif-multitool-message-id.sarif"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "FunctionalTestOutput.ValidateCommand/Inputs.JSON1001.SyntaxError.sarif",
        line: 3,
        endLine: null,
        column: 2,
        severity: "error",
        message: "at \"$schema\": JSON syntax error: Invalid property identifier character: ,. Path '$schema', line 3, position 2.",
        rule: "JSON0001",
        helper: "scan",
      },
    ]);
  });

  it("reports results located only by logical locations (FxCop), naming them", () => {
    expect(parseSarif(readFixture("fxcop-logical-locations.sarif"), context)).toEqual({
      findings: [],
      problems: [
        'runs[0].results[0]: has only a logical location "Microsoft.CodeAnalysis.Sarif", no file to annotate; not reported',
        'runs[0].results[1]: has only a logical location "Microsoft.CodeAnalysis.Sarif.Baseline", no file to annotate; not reported',
      ],
    });
  });

  it.each(["sarif-multitool-message-id.sarif", "semgrep-like.sarif", "fxcop-logical-locations.sarif"])("reads %s behind a byte-order mark", (name) => {
    expect(parseSarif(`\ufeff${readFixture(name)}`, context)).toEqual(parseSarif(readFixture(name), context));
  });
});

describe("parseSarif messages by id", () => {
  const rule = (messageStrings: unknown) => ({ tool: { driver: { name: "t", rules: [{ id: "R1", messageStrings }] } } });
  const byId = (message: unknown, run: Record<string, unknown>) => parseSarif(log({ ...at("a.py"), ruleId: "R1", message }, run), context).findings[0]?.message;

  it.each([
    [{ id: "m", arguments: ["x", "y"] }, { m: { text: "{1} then {0}" } }, "y then x"],
    [{ id: "m", arguments: ["x"] }, { m: { text: "{{0}} is {0}" } }, "{0} is x"],
    [{ id: "m", arguments: [] }, { m: { text: "missing {0} stays" } }, "missing {0} stays"],
    [{ id: "m", arguments: [7] }, { m: { text: "not a string {0}" } }, "not a string {0}"],
    [{ id: "m", arguments: ["x", 7] }, { m: { text: "{1}, {01}, {00}" } }, "{1}, {01}, x"],
    [{ id: "m" }, { m: { text: "stray } and { braces" } }, "stray } and { braces"],
    [{ id: "m" }, { m: "a SARIF 2.0 draft string" }, "a SARIF 2.0 draft string"],
    [{ text: "text wins", id: "m" }, { m: { text: "not this" } }, "text wins"],
  ])("formats %j with %j", (message, messageStrings, expected) => {
    expect(byId(message, rule(messageStrings))).toBe(expected);
  });

  it("falls back to the driver's globalMessageStrings", () => {
    const run = { tool: { driver: { name: "t", globalMessageStrings: { g: { text: "global {0}" } } } } };
    expect(byId({ id: "g", arguments: ["hit"] }, run)).toBe("global hit");
  });

  it.each([
    [{ id: "nope" }, rule({ m: { text: "x" } })],
    [{ id: "constructor" }, rule({})],
    [{ id: "m" }, rule({ m: { markdown: "**only markdown**" } })],
  ])("reports %j without a message string as having no message", (message, run) => {
    expect(parseSarif(log({ ...at("a.py"), ruleId: "R1", message }, run), context).problems).toEqual(["runs[0].results[0]: has no message"]);
  });

  it.each([
    ["placeholders repeating a long argument", { id: "m", arguments: ["a".repeat(100_000)] }, { m: { text: "{0}".repeat(1000) } }],
    ["a long message string", { id: "m" }, { m: { text: "b".repeat(100_000) } }],
  ])("cuts a message of %s to one character more than a finding shows, left for sanitising to mark", (_name, message, messageStrings) => {
    const text = byId(message, rule(messageStrings));
    expect(text).toHaveLength(MAX_FINDING_TEXT + 1);
    expect(text?.endsWith("…")).toBe(false);
  });

  it.each([
    ["ends before the cut", 3],
    ["runs past the cut", 400],
  ])("formats a message string whose placeholders repeat several arguments and which %s", (_name, repeats) => {
    const message = { id: "m", arguments: ["abcd", "c\u001b[1mdef", 7, "unused"] };
    const text = byId(message, rule({ m: { text: "{0}-{1}/{2}|{{}}".repeat(repeats) } }));
    expect(text).toBe("abcd-cdef/{2}|{}".repeat(repeats).slice(0, MAX_FINDING_TEXT + 1));
  });

  it("keeps a message of exactly the length a finding shows", () => {
    expect(byId({ id: "m" }, rule({ m: { text: "c".repeat(MAX_FINDING_TEXT) } }))).toBe("c".repeat(MAX_FINDING_TEXT));
  });

  it.each([
    [{ locations: [{ logicalLocations: [{ index: 1 }] }] }, 'has only a logical location "N.C.m(int)"'],
    [{ locations: [{ logicalLocations: [{ name: "m" }] }] }, 'has only a logical location "m"'],
    [{ locations: [{ logicalLocations: [{}] }] }, "has only a logical location"],
  ])("names the logical location of %j from the run's list", (fields, reason) => {
    const run = { logicalLocations: [{ name: "other" }, { fullyQualifiedName: "N.C.m(int)" }] };
    expect(parseSarif(log({ message: { text: "m" }, ...fields }, run), context).problems).toEqual([
      `runs[0].results[0]: ${reason}, no file to annotate; not reported`,
    ]);
  });

  it("reports a result with no location at all", () => {
    expect(parseSarif(log({ message: { text: "m" } }), context).problems).toEqual(["runs[0].results[0]: has no file location; not reported"]);
  });
});

describe("parseSarif under hostile output", () => {
  // Every result on one file behind a long base URI, its text a long shared message string whose
  // placeholders repeat a long argument; and semgrep-like results over distinct files.
  const hostile = (size: number) =>
    JSON.stringify({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "t", rules: [{ id: "R", messageStrings: { m: { text: `${hostileMessage(1, 20_000)}{0}{0}{0}` } } }] } },
          originalUriBaseIds: { ROOT: { uri: `file:///work/${"deep/".repeat(780)}` } },
          results: JSON.parse(
            `[${repeatTo(size, 5, ",", (index) =>
              JSON.stringify({
                ruleIndex: 0,
                message: { id: "m", arguments: [hostileMessage(index, 40)] },
                locations: [{ physicalLocation: { artifactLocation: { uri: "a.py", uriBaseId: "ROOT" }, region: { startLine: index + 1 } } }],
              }),
            )}]`,
          ) as unknown,
        },
      ],
    });
  const benign = (size: number) => {
    const { runs } = JSON.parse(readFixture("semgrep-like.sarif")) as { runs: Record<string, unknown>[] };
    return JSON.stringify({ version: "2.1.0", runs: JSON.parse(`[${repeatTo(size, 6, ",", () => JSON.stringify(runs[0]))}]`) as unknown });
  };

  it.each([
    ["hostile", hostile, 100_000],
    ["benign", benign, 500_000],
  ])("reads %s output in linear time (4× the input, at most 6× the time)", (_name, make, size) => {
    expect(growthRatio((output) => readOutput("sarif", output), make, size)).toBeLessThanOrEqual(6);
  });
});
