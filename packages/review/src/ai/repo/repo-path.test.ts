import { describe, expect, it } from "vitest";
import { checkRepoPath, MAX_PATH_BYTES } from "./repo-path.js";
import { ToolInputError } from "../tools/tool-input-error.js";

describe("checkRepoPath", () => {
  it.each([
    ["src/app.ts", "src/app.ts"],
    ["src/", "src"],
    ["", ""],
    [".", ""],
    ["a*", "a*"],
    ["[a]/b c é.md", "[a]/b c é.md"],
    ["-dash", "-dash"],
    ["..foo/bar..", "..foo/bar.."],
    [".github/workflows", ".github/workflows"],
  ])("accepts %j as %j", (path, expected) => {
    expect(checkRepoPath("read_file", path)).toBe(expected);
  });

  it.each([
    ["../../etc/passwd", '".." segment'],
    ["src/../../x", '".." segment'],
    ["..", '".." segment'],
    ["/etc/passwd", "is absolute"],
    ["/proc/self/environ", "is absolute"],
    ["/", "is absolute"],
    ["./src/app.ts", 'empty or "." segment'],
    ["src//app.ts", 'empty or "." segment'],
    ["src/./app.ts", 'empty or "." segment'],
    ["src//", 'empty or "." segment'],
    ["a\0b", "control character"],
    ["a\nb", "control character"],
    ["a\u007fb", "control character"],
    ["a".repeat(MAX_PATH_BYTES + 1), `longer than ${MAX_PATH_BYTES} bytes`],
    ["é".repeat(MAX_PATH_BYTES / 2 + 1), `longer than ${MAX_PATH_BYTES} bytes`],
  ])("refuses %j (%s)", (path, reason) => {
    expect(() => checkRepoPath("read_file", path)).toThrow(ToolInputError);
    expect(() => checkRepoPath("read_file", path)).toThrow(reason);
  });

  it("names the tool and quotes the path escaped and cut", () => {
    const error = catchError(() => checkRepoPath("list_dir", `/\u202e${"x".repeat(500)}`));
    expect(error.message).toMatch(/^list_dir: the path "\/\\u202ex{198}…" is absolute/);
    expect(error.message.length).toBeLessThan(400);
  });

  it("accepts a path of exactly the byte limit", () => {
    expect(checkRepoPath("grep", "a".repeat(MAX_PATH_BYTES))).toHaveLength(MAX_PATH_BYTES);
  });
});

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error("expected a throw");
}
