import { describe, expect, it } from "vitest";
import type { Judge } from "./judge-pair.js";
import { judgedMatching } from "./judged-matching.js";
import type { KnownFinding } from "./suite-manifest.js";

const known = (startLine: number, description: string): KnownFinding => ({ path: "a.ts", side: "RIGHT", startLine, endLine: startLine, description });
const finding = (line: number, title: string) => ({ path: "a.ts", side: "RIGHT" as const, startLine: line, line, placed: true, title, body: "" });
const usage = { inputTokens: 2, outputTokens: 1 };

describe("judgedMatching", () => {
  it("judges only window candidates and matches one to one, as many as possible, over the pairs judged the same", async () => {
    const asked: string[] = [];
    // f0 is the same problem as k1 only, f1 as k0 and k1: a greedy f0→k0 would be refused, the maximum is two pairs.
    const judge: Judge = (target, subject) => {
      asked.push(`${subject.title}~${target.description}`);
      const same = subject.title === "f1" || target.description === "k1";
      return Promise.resolve({ verdict: same ? "same" : "different", promptHash: "0".repeat(64), answer: "", usage });
    };
    const result = await judgedMatching([finding(10, "f0"), finding(11, "f1"), finding(90, "far")], [known(10, "k0"), known(12, "k1")], {
      window: 3,
      renames: new Map(),
      judge,
    });
    expect(asked).toEqual(["f0~k0", "f0~k1", "f1~k0", "f1~k1"]);
    expect([...result.pairs].sort()).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(result.usage).toEqual({ inputTokens: 8, outputTokens: 4 });
    expect(result.judgements.map((entry) => [entry.finding, entry.known, entry.verdict])).toEqual([
      [0, 0, "different"],
      [0, 1, "same"],
      [1, 0, "same"],
      [1, 1, "same"],
    ]);
  });

  it("without a judge every window candidate stays", async () => {
    const result = await judgedMatching([finding(10, "f0"), finding(11, "f1")], [known(10, "k0"), known(12, "k1")], { window: 3, renames: new Map() });
    expect(result.pairs).toHaveLength(2);
    expect(result.judgements).toEqual([]);
  });
});
