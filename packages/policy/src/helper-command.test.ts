import { describe, expect, it } from "vitest";
import { checkHelperCommand, checkHelperCwd, relocateTrustedPaths, SANDBOX_WORKTREE } from "./helper-command.js";

const FIELD = "helpers[2].command";

describe("checkHelperCommand", () => {
  it.each([
    [["flake8"], ["flake8"]],
    [
      ["eslint", "--format", "json", "."],
      ["eslint", "--format", "json", "."],
    ],
    [
      ["python3", "-m", "mypy"],
      ["python3", "-m", "mypy"],
    ],
    [
      ["g++", "--version"],
      ["g++", "--version"],
    ],
    // Later entries are data for the program unless they mention .ai: not checked here.
    [
      ["cat", "../../etc/passwd", "/abs"],
      ["cat", "../../etc/passwd", "/abs"],
    ],
    [
      ["sh", "-c", "echo hi"],
      ["sh", "-c", "echo hi"],
    ],
    // A trusted path is absolute, so the helper's cwd cannot change which file it names.
    [[".ai/lint.sh"], ["/work/.ai/lint.sh"]],
    [
      ["./.ai/tools/x", "-v"],
      ["/work/.ai/tools/x", "-v"],
    ],
    [[".ai/a/../b.sh"], ["/work/.ai/b.sh"]],
    [[".ai/./x"], ["/work/.ai/x"]],
    [[".ai/../.ai/x"], ["/work/.ai/x"]],
    [[".ai/sub/.ai/x"], ["/work/.ai/sub/.ai/x"]],
    // Arguments that name .ai/ get the same treatment: an interpreter runs the base's script.
    [
      ["sh", ".ai/run.sh", "src/"],
      ["sh", "/work/.ai/run.sh", "src/"],
    ],
    [
      ["python3", ".ai/x.py"],
      ["python3", "/work/.ai/x.py"],
    ],
    [
      ["bash", "./.ai/x"],
      ["bash", "/work/.ai/x"],
    ],
    [
      ["python3", ".ai"],
      ["python3", "/work/.ai"],
    ],
    [
      ["node", "./././.ai/a/../b.mjs"],
      ["node", "/work/.ai/b.mjs"],
    ],
    [
      ["eslint", "--config=.ai/eslint.config.js", "."],
      ["eslint", "--config=/work/.ai/eslint.config.js", "."],
    ],
    [
      ["eslint", "-c", ".ai/eslint.config.js"],
      ["eslint", "-c", "/work/.ai/eslint.config.js"],
    ],
    [
      [".ai/lint.sh", "--", ".ai/rules.txt"],
      ["/work/.ai/lint.sh", "--", "/work/.ai/rules.txt"],
    ],
    // Other names that merely contain .ai are data.
    [
      ["cat", ".aiignore", "src/.ai-rules", "x.ai.json", ".ai_x"],
      ["cat", ".aiignore", "src/.ai-rules", "x.ai.json", ".ai_x"],
    ],
  ])("accepts %j as %j", (command, expected) => {
    expect(checkHelperCommand(command, FIELD)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["../x.sh", '"../x.sh" leaves .ai/ after normalisation'],
    ["..", '".." leaves .ai/ after normalisation'],
    [".ai/../../x", '".ai/../../x" leaves .ai/ after normalisation'],
    [".ai/../x", '".ai/../x" leaves .ai/ after normalisation (to "x")'],
    ["./scripts/lint.sh", '"./scripts/lint.sh" leaves .ai/ after normalisation (to "scripts/lint.sh")'],
    ["scripts/lint.sh", '"scripts/lint.sh" leaves .ai/ after normalisation (to "scripts/lint.sh")'],
    [".AI/lint.sh", '".AI/lint.sh" leaves .ai/ after normalisation (to ".AI/lint.sh")'],
    [".", '"." leaves .ai/ after normalisation (to ".")'],
    [".hidden", '".hidden" leaves .ai/ after normalisation (to ".hidden")'],
    [".ai", '".ai" names the .ai/ directory itself, not a file in it'],
    ["./.ai", '"./.ai" names the .ai/ directory itself, not a file in it'],
    [".ai/x/..", '".ai/x/.." names the .ai/ directory itself, not a file in it'],
    ["/usr/bin/python3", '"/usr/bin/python3" is an absolute path'],
    ["//.ai/x", '"//.ai/x" is an absolute path'],
    ["~", '"~" starts with ~ (a home directory)'],
    ["~/bin/lint", '"~/bin/lint" starts with ~ (a home directory)'],
    [".ai/", '".ai/" contains an empty path segment (// or a trailing /)'],
    [".ai//x.sh", '".ai//x.sh" contains an empty path segment (// or a trailing /)'],
    [".ai\\x.sh", '".ai\\\\x.sh" contains a backslash; use / as the separator'],
    ["..\\x", '"..\\\\x" contains a backslash; use / as the separator'],
    [".ai/x\0.sh", '".ai/x\\u0000.sh" contains a NUL byte'],
    [".ai/x\n.sh", '".ai/x\\n.sh" contains the control character U+000A'],
    [".ai/\u202ehs.x", '".ai/\\u202ehs.x" contains the control character U+202E'],
    [".ai/.git/hooks/x", '".ai/.git/hooks/x" reaches into .git/ (repository metadata and hooks)'],
    [".ai/.GIT/x", '".ai/.GIT/x" reaches into .git/ (repository metadata and hooks)'],
    [".git/hooks/pre-commit", '".git/hooks/pre-commit" reaches into .git/ (repository metadata and hooks)'],
    [".ai/.git/../x.sh", '".ai/.git/../x.sh" reaches into .git/ (repository metadata and hooks)'],
    [".ai/node_modules/.bin/x", '".ai/node_modules/.bin/x" reaches into node_modules/ (installed code, not the reviewed tree)'],
    [".ai/Node_Modules/x", '".ai/Node_Modules/x" reaches into node_modules/ (installed code, not the reviewed tree)'],
    ["-rf", '"-rf" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
    ["$(id)", '"$(id)" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
    ["`id`", '"`id`" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
    ["sh;id", '"sh;id" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
    ["flake 8", '"flake 8" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
    ["a\\b", '"a\\\\b" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
    ["", '"" is neither a bare program name (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/) nor a path under .ai/'],
  ])("refuses command[0] %j", (program, reason) => {
    expect(checkHelperCommand([program, "arg"], FIELD)).toEqual({
      ok: false,
      errors: [{ path: "helpers[2].command[0]", message: `helpers[2].command[0]: ${reason}` }],
    });
  });

  const NOT_FROM_ROOT =
    "mentions .ai other than as a path .ai/… from the repository root: relative to the helper's cwd it could name a directory the PR controls";

  it.each([
    // Relative to a cwd, each of these could reach a .ai/ the PR planted.
    ["src/.ai/run.sh", `"src/.ai/run.sh" ${NOT_FROM_ROOT}`],
    ["../.ai/run.sh", `"../.ai/run.sh" ${NOT_FROM_ROOT}`],
    ["a/../.ai/x", `"a/../.ai/x" ${NOT_FROM_ROOT}`],
    ["src/.ai", `"src/.ai" ${NOT_FROM_ROOT}`],
    [".AI/run.sh", `".AI/run.sh" ${NOT_FROM_ROOT}`],
    ["./.Ai", `"./.Ai" ${NOT_FROM_ROOT}`],
    ["/work/.ai/run.sh", `"/work/.ai/run.sh" ${NOT_FROM_ROOT}`],
    ["/work/src/.ai/run.sh", `"/work/src/.ai/run.sh" ${NOT_FROM_ROOT}`],
    ["~/.ai/x", `"~/.ai/x" ${NOT_FROM_ROOT}`],
    ["-c.ai/x", `"-c.ai/x" ${NOT_FROM_ROOT}`],
    ["--config=src/.ai/x", `"--config=src/.ai/x" ${NOT_FROM_ROOT}`],
    ["--.ai=x", `"--.ai=x" ${NOT_FROM_ROOT}`],
    ["X=.ai/x", `"X=.ai/x" ${NOT_FROM_ROOT}`],
    ["cd src && sh .ai/run.sh", `"cd src && sh .ai/run.sh" ${NOT_FROM_ROOT}`],
    ["sh '.ai'/run.sh", `"sh '.ai'/run.sh" ${NOT_FROM_ROOT}`],
    [".ai,src", `".ai,src" ${NOT_FROM_ROOT}`],
    ["logo.ai", `"logo.ai" ${NOT_FROM_ROOT}`],
    // From the root, but leaving .ai/ once normalised.
    [".ai/../x", '".ai/../x" leaves .ai/ after normalisation (to "x")'],
    [".ai/../src/.ai/x", '".ai/../src/.ai/x" leaves .ai/ after normalisation (to "src/.ai/x")'],
    [".ai/..", '".ai/.." leaves .ai/ after normalisation (to ".")'],
    [".ai/../../x", '".ai/../../x" leaves .ai/ after normalisation'],
    ["--config=.ai/../x", '".ai/../x" leaves .ai/ after normalisation (to "x")'],
    [".ai/", '".ai/" contains an empty path segment (// or a trailing /)'],
    [".ai/.git/hooks/x", '".ai/.git/hooks/x" reaches into .git/ (repository metadata and hooks)'],
  ])("refuses the argument %j", (arg, reason) => {
    expect(checkHelperCommand(["sh", arg], FIELD)).toEqual({
      ok: false,
      errors: [{ path: "helpers[2].command[1]", message: `helpers[2].command[1]: ${reason}` }],
    });
  });

  it("reports every bad entry, command[0] and arguments alike", () => {
    const result = checkHelperCommand(["../x", "ok", "src/.ai/a", ".ai/../b"], FIELD);
    expect(result.ok ? [] : result.errors.map((error) => error.path)).toEqual(["helpers[2].command[0]", "helpers[2].command[2]", "helpers[2].command[3]"]);
  });

  it("refuses an empty command", () => {
    expect(checkHelperCommand([], FIELD)).toEqual({
      ok: false,
      errors: [{ path: FIELD, message: "helpers[2].command: is empty; give a program and its arguments" }],
    });
  });
});

describe("checkHelperCwd", () => {
  it.each([
    [undefined, "."],
    [".", "."],
    ["src", "src"],
    ["./src/../lib", "lib"],
    ["packages/a/./b", "packages/a/b"],
    [".ai", ".ai"],
    // Inside the base's own .ai/, every name is the base's.
    [".ai/tools/.ai", ".ai/tools/.ai"],
    ["src/.ai/..", "src"],
    [".aiignore/x", ".aiignore/x"],
  ])("accepts %j as %j", (cwd, expected) => {
    expect(checkHelperCwd(cwd, "helpers[0].cwd")).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["/tmp", '"/tmp" is an absolute path'],
    ["~", '"~" starts with ~ (a home directory)'],
    ["..", '".." leaves the worktree after normalisation'],
    ["src/../../x", '"src/../../x" leaves the worktree after normalisation'],
    [".git", '".git" reaches into .git/ (repository metadata and hooks)'],
    ["a/.Git/b", '"a/.Git/b" reaches into .git/ (repository metadata and hooks)'],
    ["node_modules/x", '"node_modules/x" reaches into node_modules/ (installed code, not the reviewed tree)'],
    ["src\\x", '"src\\\\x" contains a backslash; use / as the separator'],
    ["src\0", '"src\\u0000" contains a NUL byte'],
    ["src/", '"src/" contains an empty path segment (// or a trailing /)'],
    ["", '"" is empty'],
    // There every relative argument would name a file of a .ai the PR controls.
    ["src/.ai", '"src/.ai" lies inside "src/.ai", which the PR controls (only the top-level .ai/ is the base\'s)'],
    ["./src/.ai/x", '"./src/.ai/x" lies inside "src/.ai", which the PR controls (only the top-level .ai/ is the base\'s)'],
    ["a/b/.AI/c", '"a/b/.AI/c" lies inside "a/b/.AI", which the PR controls (only the top-level .ai/ is the base\'s)'],
    [".AI", '".AI" lies inside ".AI", which the PR controls (only the top-level .ai/ is the base\'s)'],
  ])("refuses %j", (cwd, reason) => {
    expect(checkHelperCwd(cwd, "helpers[0].cwd")).toEqual({
      ok: false,
      errors: [{ path: "helpers[0].cwd", message: `helpers[0].cwd: ${reason}` }],
    });
  });
});

describe("relocateTrustedPaths", () => {
  it("is the mount point every engine uses for the worktree", () => {
    expect(SANDBOX_WORKTREE).toBe("/work");
  });

  it.each([
    [
      ["/work/.ai/lint.sh", "src"],
      ["/srv/tree/.ai/lint.sh", "src"],
    ],
    [
      ["sh", "/work/.ai/run.sh", "--config=/work/.ai/x"],
      ["sh", "/srv/tree/.ai/run.sh", "--config=/srv/tree/.ai/x"],
    ],
    [
      ["python3", "/work/.ai"],
      ["python3", "/srv/tree/.ai"],
    ],
    // Only the policy's own absolute .ai paths move.
    [
      ["cat", "/work/src/a", "/work/.aix", "x=/work/.ai/y", "/work"],
      ["cat", "/work/src/a", "/work/.aix", "x=/work/.ai/y", "/work"],
    ],
  ])("moves %j to %j", (argv, expected) => {
    expect(relocateTrustedPaths(argv, "/srv/tree")).toEqual(expected);
  });

  it("moves exactly what checkHelperCommand made absolute", () => {
    const checked = checkHelperCommand([".ai/a.sh", ".ai/b", "--c=./.ai/d", "src"], FIELD);
    expect(checked.ok && relocateTrustedPaths(checked.value, "/srv/tree")).toEqual(["/srv/tree/.ai/a.sh", "/srv/tree/.ai/b", "--c=/srv/tree/.ai/d", "src"]);
  });
});
