import { describe, expect, it } from "vitest";
import { extractFindings, type ExtractRequest } from "./extract-findings.js";

const REQUEST: Omit<ExtractRequest, "output"> = {
  format: "errorformat",
  helper: "lint",
  mountPoint: "/work",
  cwd: ".",
  secrets: ["secret-value-123"],
  maxFindings: 3,
};
const lines = (paths: readonly string[]) => paths.map((path, index) => `${path}:${String(index + 1)}:1: E1 bad`).join("\n");
const TWO = lines(["/work/a.py", "b.py"]);
// A small Buffer is a view into Node's shared pool: only its own bytes may be read.
const pooled = Buffer.from(`xx${TWO}yy`);

describe("extractFindings", () => {
  it.each([
    ["bytes", Buffer.from(TWO)],
    ["a string", TWO],
    ["a view into a larger buffer", new Uint8Array(pooled.buffer, pooled.byteOffset + 2, TWO.length)],
  ])("reads findings on repository paths from %s", (_label, output) => {
    const extracted = extractFindings({ ...REQUEST, output });
    expect(extracted.findings.map((f) => [f.path, f.line])).toEqual([
      ["a.py", 1],
      ["b.py", 2],
    ]);
    expect(extracted).toMatchObject({ problems: [], dropped: 0 });
  });

  it.each([
    [3, 3, 0],
    [5, 3, 2],
    [1, 1, 0],
  ])("of %d findings keeps at most maxFindings (%d) and counts the rest (%d)", (count, kept, dropped) => {
    const extracted = extractFindings({ ...REQUEST, output: lines(Array.from({ length: count }, () => "a.py")) });
    expect([extracted.findings.length, extracted.dropped]).toEqual([kept, dropped]);
  });

  it("sanitises what it keeps: secrets and escape sequences", () => {
    const [finding] = extractFindings({ ...REQUEST, output: "a.py:1:1: leaked secret-value-123 \u001b[31mred\u001b[0m" }).findings;
    expect(finding?.message).toBe("leaked [REDACTED] red");
  });

  it("lists paths outside the repository as problems, at most 50 and a count", () => {
    const extracted = extractFindings({ ...REQUEST, maxFindings: 1000, output: lines(Array.from({ length: 60 }, () => "../x.py")) });
    expect(extracted.findings).toEqual([]);
    expect(extracted.problems).toHaveLength(51);
    expect(extracted.problems.at(-1)).toBe("… and 10 more findings whose path could not be mapped");
  });
});

describe("extractFindings on SARIF message strings (literal text and arguments cleaned apart)", () => {
  const sarif = (template: string, args: readonly string[]) =>
    JSON.stringify({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "t", rules: [{ id: "R", messageStrings: { m: { text: template } } }] } },
          results: [{ ruleIndex: 0, message: { id: "m", arguments: args }, locations: [{ physicalLocation: { artifactLocation: { uri: "a.py" } } }] }],
        },
      ],
    });
  const message = (template: string, args: readonly string[]) =>
    extractFindings({ ...REQUEST, format: "sarif", output: sarif(template, args) }).findings[0]?.message;

  it.each([
    ["a secret split between the string and an argument", "leaked: secret-va{0} here", ["lue-123"], "leaked: [REDACTED] here"],
    // Cut to what a finding shows mid-secret: the part that is left is redacted, then marked.
    ["a secret cut by the end of the message", `${"x".repeat(990)} {0}`, ["secret-value-123"], `${"x".repeat(990)} [REDACTE…`],
    ["escape sequences in the string and in an argument", "\u001b[1m{0}\u001b[0m done", ["\u001b]8;;http://x\u0007link"], "link done"],
    ["an escape sequence split between them", "red\u001b{0}", ["[31m!"], "red[31m!"],
    ["newlines and tabs around the pieces", "a \n\t{0}\n", ["b\n c"], "a b c"],
    ["bidi controls and a lone surrogate", "\u202e{0}", ["x\ud800"], "x\ufffd"],
  ])("%s", (_label, template, args, expected) => {
    expect(message(template, args)).toBe(expected);
  });

  it.each([
    ["\u001b{0}", ["[2J"]],
    ["{0}{1}", ["\u001b", "]0;title\u0007"]],
    ["\u009b{0}", ["31m"]],
  ])("leaves no control character whatever %j and %j make together", (template, args) => {
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(message(template, args)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
