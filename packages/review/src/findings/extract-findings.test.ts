import { describe, expect, it } from "vitest";
import { extractFindings, type ExtractRequest } from "./extract-findings.js";

const REQUEST: Omit<ExtractRequest, "output"> = {
  format: "errorformat", helper: "lint", mountPoint: "/work", cwd: ".", secrets: ["secret-value-123"], maxFindings: 3,
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
    expect(extracted.findings.map((f) => [f.path, f.line])).toEqual([["a.py", 1], ["b.py", 2]]);
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
