import { describe, expect, it } from "vitest";
import { unquoteGitPath } from "./unquote-git-path.js";

describe("unquoteGitPath", () => {
  it.each([
    ["plain/path.txt", "plain/path.txt"],
    ['"tab\\there"', "tab\there"],
    ['"quote\\"inside"', 'quote"inside'],
    ['"back\\\\slash"', "back\\slash"],
    ['"caf\\303\\251"', "café"],
    ['"bell\\a\\001"', "bell\u0007\u0001"],
    ['"', '"'],
  ])("decodes %s", (input, expected) => {
    expect(unquoteGitPath(input)).toBe(expected);
  });
});
