import { describe, expect, it } from "vitest";
import { ToolSpec } from "@reviewbot/contracts/chat";
import { MAX_SUBMIT_REVIEW_CHARS, parseSubmitReview, SUBMIT_REVIEW_TOOL, type AiFinding } from "./submit-review.js";

const finding: AiFinding = {
  path: "src/a.ts",
  side: "RIGHT",
  line: 12,
  severity: "warning",
  category: "bug",
  title: "Off by one",
  body: "The loop reads one past the end.",
  anchorText: "for (let i = 0; i <= n; i++) {",
};
const args = (value: unknown) => JSON.stringify(value);
const problems = (value: unknown) => {
  const result = parseSubmitReview(typeof value === "string" ? value : args(value));
  return result.ok ? [] : result.problems;
};

describe("parseSubmitReview", () => {
  it("accepts a review with a single-line and a multi-line finding with a suggestion", () => {
    const review = { summary: "Looks fine.", findings: [finding, { ...finding, startLine: 10, suggestion: "for (let i = 0; i < n; i++) {" }] };
    expect(parseSubmitReview(args(review))).toEqual({ ok: true, review });
  });

  it("accepts a review without findings", () => {
    expect(parseSubmitReview(args({ summary: "", findings: [] })).ok).toBe(true);
  });

  it.each([
    ["a line below 1", { line: 0 }, "findings[0].line: Too small"],
    ["a fractional line", { line: 1.5 }, "findings[0].line: Invalid input: expected int"],
    ["an unknown side", { side: "BOTH" }, "findings[0].side: Invalid option"],
    ["an unknown category", { category: "nitpick" }, "findings[0].category: Invalid option"],
    ["an unknown severity", { severity: "critical" }, "findings[0].severity: Invalid option"],
    ["startLine after line", { startLine: 13 }, "findings[0].startLine: startLine must not be after line"],
    ["an unknown key", { confidence: 0.9 }, 'findings[0]: Unrecognized key: "confidence"'],
    ["a long title", { title: "t".repeat(201) }, "findings[0].title: Too big"],
    ["a long anchorText", { anchorText: "a".repeat(501) }, "findings[0].anchorText: Too big"],
    ["a long suggestion", { suggestion: "s".repeat(4001) }, "findings[0].suggestion: Too big"],
    ["an empty path", { path: "" }, "findings[0].path: Too small"],
  ])("names the field of %s", (_name, change, problem) => {
    const listed = problems({ summary: "s", findings: [{ ...finding, ...change }] });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toContain(problem);
  });

  it("indexes the bad finding among good ones", () => {
    expect(problems({ summary: "s", findings: [finding, finding, { ...finding, line: -3 }] })).toEqual([
      "findings[2].line: Too small: expected number to be >=1",
    ]);
  });

  it.each([
    ["more than 50 findings", { summary: "s", findings: Array.from({ length: 51 }, () => finding) }, "findings: Too big"],
    ["a long summary", { summary: "s".repeat(4001), findings: [] }, "summary: Too big"],
    ["a missing summary", { findings: [] }, "summary: Invalid input"],
    ["an unknown top-level key", { summary: "s", findings: [], verdict: "approve" }, '(arguments): Unrecognized key: "verdict"'],
    ["a __proto__ key", '{"summary":"s","findings":[],"__proto__":{"ok":true}}', '(arguments): Unrecognized key: "__proto__"'],
    ["an array", [], "(arguments): Invalid input: expected object"],
  ])("refuses %s", (_name, value, problem) => {
    expect(problems(value)[0]).toContain(problem);
  });

  it("lists at most ten problems and counts the rest", () => {
    const listed = problems({ summary: "s", findings: Array.from({ length: 30 }, () => ({ ...finding, line: 0 })) });
    expect(listed).toHaveLength(11);
    expect(listed.at(-1)).toBe("and 20 more");
  });

  it("keeps each problem short even when it quotes a long key the model made up", () => {
    const listed = problems(`{"summary":"s","findings":[],"${"k".repeat(5000)}":1}`);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.length).toBeLessThan(200);
  });

  it.each([
    ["truncated JSON", '{"summary":"s","findings":['],
    ["prose", "Here is my review: looks good"],
    ["deeply nested arrays", "[".repeat(100_000)],
  ])("answers %s with one short problem", (_name, text) => {
    const listed = problems(text);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatch(/^the arguments are not valid JSON \(.{1,160}\)$/);
  });

  it("refuses arguments over the limit before parsing them, and reads those just under it", () => {
    const padded = (length: number) => {
      const base = args({ summary: "", findings: [] });
      return `${base.slice(0, -1)}${" ".repeat(length - base.length)}}`;
    };
    expect(parseSubmitReview(padded(MAX_SUBMIT_REVIEW_CHARS)).ok).toBe(true);
    expect(problems(padded(MAX_SUBMIT_REVIEW_CHARS + 1))).toEqual([
      `the arguments are ${MAX_SUBMIT_REVIEW_CHARS + 1} characters long; at most ${MAX_SUBMIT_REVIEW_CHARS} are read`,
    ]);
  });
});

describe("SUBMIT_REVIEW_TOOL", () => {
  const schema = SUBMIT_REVIEW_TOOL.parameters;

  it("is a tool spec the chat contract accepts", () => {
    expect(ToolSpec.parse(SUBMIT_REVIEW_TOOL)).toEqual(SUBMIT_REVIEW_TOOL);
  });

  // OpenAI function parameters and Anthropic input_schema both want a self-contained object schema.
  it("has a plain object schema: no $schema, no references, closed objects", () => {
    expect(schema).toMatchObject({ type: "object", required: ["summary", "findings"], additionalProperties: false });
    const text = JSON.stringify(schema);
    expect(text).not.toMatch(/"\$(schema|ref|defs|id)"/);
    expect(schema).toHaveProperty("properties.findings.items.additionalProperties", false);
    expect(schema).toHaveProperty("properties.findings.items.properties.side.enum", ["RIGHT", "LEFT"]);
    expect(schema).toHaveProperty("properties.findings.items.required", ["path", "side", "line", "severity", "category", "title", "body", "anchorText"]);
  });
});
