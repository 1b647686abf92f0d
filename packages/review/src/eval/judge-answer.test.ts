import { describe, expect, it } from "vitest";
import { JUDGE_ANSWER_CHARS, parseJudgeAnswer } from "./judge-answer.js";

describe("parseJudgeAnswer", () => {
  it("reads exactly the JSON object asked for", () => {
    expect(parseJudgeAnswer('{"same": true}')).toBe("same");
    expect(parseJudgeAnswer(' {"same":false}\n')).toBe("different");
  });

  it("counts anything else as unparseable", () => {
    for (const answer of [
      "",
      "yes",
      "true",
      '{"same": "true"}',
      '{"same": true, "why": "x"}',
      '```json\n{"same": true}\n```',
      "[true]",
      "null",
      '{"Same": true}',
    ])
      expect(parseJudgeAnswer(answer), answer).toBe("unparseable");
  });

  it("does not parse an answer longer than the cap", () => {
    expect(parseJudgeAnswer(`${" ".repeat(JUDGE_ANSWER_CHARS)}{"same": true}`)).toBe("unparseable");
  });
});
