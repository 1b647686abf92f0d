import { describe, expect, it } from "vitest";
import { OutputFormat } from "@reviewbot/policy/helper-spec";
import { readFixture } from "./fixtures/read-fixture.js";
import { parseFindings } from "./parse-findings.js";

const context = { helper: "h" };
const structured = OutputFormat.options.filter((format) => format !== "text");

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const deepObject = (depth: number) => `${'{"runs":'.repeat(depth)}1${"}".repeat(depth)}`;

// Output no helper in a correct state writes; each must be noted, never thrown on.
const HOSTILE: readonly (readonly [string, string])[] = [
  ["truncated JSON", '[{"filePath":"a.js","messages":[{"message":"m","line":'],
  ["an HTML error page", "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>"],
  ["10k-deep arrays", deep(10_000)],
  ["10k-deep objects", deepObject(10_000)],
  ["a JSON string", '"just a string"'],
  ["JSON null", "null"],
  ["a number", "1e999999"],
  ["binary noise", "\u0000\u0001\u00ff\ufffd\u001b[31m"],
  ["wrong types everywhere", '{"runs":[{"results":[{"locations":7}]}],"diagnostics":[1,2],"messages":"x"}'],
  [
    "negative and NaN positions",
    '{"runs":[{"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a"},"region":{"startLine":-5}}}]}]}],"diagnostics":[{"message":"m","location":{"path":"a","range":{"start":{"line":-5}}}}]}',
  ],
];

describe("parseFindings", () => {
  it.each([
    ["errorformat", "flake8.txt", 9],
    ["eslint-json", "eslint.json", 5],
    ["ruff-json", "ruff.json", 3],
    ["sarif", "semgrep-like.sarif", 4],
    ["checkstyle", "checkstyle.xml", 4],
    ["rdjson", "reviewdog.rdjson", 3],
    ["rdjsonl", "reviewdog.rdjsonl", 3],
    ["text", "flake8.txt", 0],
  ] as const)("dispatches %s", (format, fixture, count) => {
    const outcome = parseFindings(format, readFixture(fixture), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toHaveLength(count);
  });

  it.each(structured.flatMap((format) => HOSTILE.map(([name, output]) => [format, name, output] as const)))(
    "%s: %s yields problems, not an exception",
    (format, _name, output) => {
      const outcome = parseFindings(format, output, context);
      expect(outcome.findings).toEqual([]);
      expect(outcome.problems.length).toBeGreaterThan(0);
    },
  );

  it.each(OutputFormat.options)("%s: empty output is no findings and no problem", (format) => {
    expect(parseFindings(format, "", context)).toEqual({ findings: [], problems: [] });
    expect(parseFindings(format, " \n", context)).toEqual({ findings: [], problems: [] });
  });
});
