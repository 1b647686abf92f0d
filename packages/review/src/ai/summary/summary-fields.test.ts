import { describe, expect, it } from "vitest";
import { MAX_CHANGE_CHARS, MAX_DESCRIPTION_CHARS, parseSubmitReview, type SubmitReview } from "../tools/submit-review.js";
import { summaryFields } from "./summary-fields.js";

const review = (extra: Partial<SubmitReview>): SubmitReview => ({ summary: "s", findings: [], ...extra });

describe("summaryFields", () => {
  it("keeps walkthrough rows only for files the part showed the model, the first row per path", () => {
    const fields = summaryFields(null, [
      {
        files: ["a.ts", "b.ts"],
        review: review({
          walkthrough: [
            { path: "a.ts", change: "A." },
            { path: "elsewhere.ts", change: "Invented." },
          ],
        }),
      },
      {
        files: ["b.ts"],
        review: review({
          walkthrough: [
            { path: "b.ts", change: "B." },
            { path: "b.ts", change: "B again." },
          ],
        }),
      },
    ]);
    expect(fields.walkthrough).toEqual([
      { path: "a.ts", change: "A." },
      { path: "b.ts", change: "B." },
    ]);
  });

  it.each([
    ["the synthesis's description over the parts'", review({ description: "whole" }), [review({ description: "part" })], "whole"],
    ["the first part's that gave one", null, [review({}), review({ description: "second" })], "second"],
    ["none when nobody gave one", null, [review({ description: "" })], undefined],
  ])("takes %s", (_case, synthesis, parts, expected) => {
    expect(
      summaryFields(
        synthesis,
        parts.map((each) => ({ files: [], review: each })),
      ).description,
    ).toBe(expected);
  });
});

describe("submit_review's summary fields", () => {
  it.each([
    ["a description too long", { description: "d".repeat(MAX_DESCRIPTION_CHARS + 1) }, "description"],
    ["a change too long", { walkthrough: [{ path: "a.ts", change: "c".repeat(MAX_CHANGE_CHARS + 1) }] }, "walkthrough[0].change"],
    ["an empty path", { walkthrough: [{ path: "", change: "c" }] }, "walkthrough[0].path"],
    ["an unknown key in a row", { walkthrough: [{ path: "a.ts", change: "c", html: "<b>" }] }, "walkthrough[0]"],
  ])("refuses %s, naming the field", (_case, extra, field) => {
    const parsed = parseSubmitReview(JSON.stringify({ summary: "s", findings: [], ...extra }));
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.join("\n")).toContain(field);
  });
});
