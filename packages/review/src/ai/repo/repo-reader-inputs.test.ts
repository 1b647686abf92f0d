import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseToolInput } from "../tools/parse-tool-input.js";
import { GetDiffInput, GrepInput, ListDirInput, ReadFileInput } from "./repo-reader-inputs.js";
import { ToolInputError } from "../tools/tool-input-error.js";

describe("repository tool inputs", () => {
  it("fills the defaults", () => {
    expect(parseToolInput("read_file", ReadFileInput, { path: "a" })).toEqual({ path: "a", side: "head" });
    expect(parseToolInput("grep", GrepInput, { pattern: "x" })).toEqual({ pattern: "x", side: "head", regex: false, caseInsensitive: false });
    expect(parseToolInput("list_dir", ListDirInput, {})).toEqual({ side: "head" });
    expect(parseToolInput("get_diff", GetDiffInput, {})).toEqual({});
  });

  it.each([
    ["an unknown key", ReadFileInput, { path: "a", follow: true }, 'Unrecognized key: "follow"'],
    ["a wrong side", ReadFileInput, { path: "a", side: "../base" }, "side: Invalid option"],
    ["line 0", ReadFileInput, { path: "a", startLine: 0 }, "startLine: Too small"],
    ["a fractional line", ReadFileInput, { path: "a", endLine: 1.5 }, "endLine: Invalid input: expected int"],
    ["an empty path", ReadFileInput, { path: "" }, "path: Too small"],
    ["a path that is not text", ListDirInput, { path: ["a"] }, "path: Invalid input: expected string"],
    ["an over-long pattern", GrepInput, { pattern: "x".repeat(501) }, "pattern: Too big"],
    ["regex as a string", GrepInput, { pattern: "x", regex: "yes" }, "regex: Invalid input: expected boolean"],
    ["not an object", GetDiffInput, "all", "(root): Invalid input: expected object"],
  ])("refuses %s with a message for the model", (_name, schema, input, message) => {
    const call = () => parseToolInput("some_tool", schema as z.ZodType, input);
    expect(call).toThrow(ToolInputError);
    expect(call).toThrow(/^some_tool: invalid arguments: /);
    expect(call).toThrow(message);
  });

  it("cuts what zod repeats of the model's keys", () => {
    const call = () => parseToolInput("list_dir", ListDirInput, { ["k".repeat(10_000)]: 1 });
    expect(call).toThrow(ToolInputError);
    expect(() => call()).toThrow(/^.{1,300}$/s);
  });

  it.each([
    ["read_file", ReadFileInput, ["path"]],
    ["list_dir", ListDirInput, []],
    ["grep", GrepInput, ["pattern"]],
    ["get_diff", GetDiffInput, []],
  ] as const)("%s becomes a JSON Schema with only its real requirements required", (_name, schema, required) => {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" });
    expect(json).toMatchObject({ type: "object", additionalProperties: false });
    expect(json.required ?? []).toEqual(required);
  });
});
