import { describe, expect, it } from "vitest";
import { mentionsAi, resolveAiReference, splitOption } from "./ai-reference.js";

describe("mentionsAi", () => {
  it.each([
    ".ai",
    ".ai/x",
    "./.ai/x",
    "src/.ai/x",
    "../.ai",
    ".AI/x",
    ".aI",
    "-c.ai/x",
    "--config=.ai/x",
    "sh .ai/x",
    "'.ai'/x",
    ".ai,node_modules",
    ".ai~",
    "logo.ai",
    "..ai/x",
    "/work/.ai/x",
  ])("%j mentions .ai", (text) => {
    expect(mentionsAi(text)).toBe(true);
  });

  it.each(["", "ai", "ai/x", ".aiignore", ".ai-rules", ".ai_x", ".ai.json", ".ai2/x", "x.aix", "src/.a/i", ".a i"])("%j does not", (text) => {
    expect(mentionsAi(text)).toBe(false);
  });
});

describe("splitOption", () => {
  it.each([
    ["--config=.ai/x", "--config=", ".ai/x"],
    ["-c=a=b", "-c=", "a=b"],
    ["--flag", "", "--flag"],
    ["x=.ai/y", "", "x=.ai/y"],
    [".ai/x", "", ".ai/x"],
  ])("splits %j into %j and %j", (arg, prefix, value) => {
    expect(splitOption(arg)).toEqual({ prefix, value });
  });
});

describe("resolveAiReference", () => {
  it.each([
    ["src/a.py", "src/a.py"],
    [".ai/x", "/sandbox/.ai/x"],
    [".ai", "/sandbox/.ai"],
    ["./.ai", "/sandbox/.ai"],
    ["--rules=./.ai/a/../r.md", "--rules=/sandbox/.ai/r.md"],
  ])("resolves %j to %j", (arg, expected) => {
    expect(resolveAiReference(arg, "f", "/sandbox")).toEqual({ ok: true, value: expected });
  });

  it("names the argument in its message", () => {
    expect(resolveAiReference("src/.ai/x", "helpers[0].command[3]", "/sandbox")).toEqual({
      ok: false,
      errors: [
        {
          path: "helpers[0].command[3]",
          message:
            'helpers[0].command[3]: "src/.ai/x" mentions .ai other than as a path .ai/… from the repository root: relative to the helper\'s cwd it could name a directory the PR controls',
        },
      ],
    });
  });
});
