import { describe, expect, it } from "vitest";
import { checkHelperCommand, checkHelperCwd } from "./helper-command.js";

const FIELD = "helpers[2].command";

describe("checkHelperCommand", () => {
  it.each([
    [["flake8"], ["flake8"]],
    [["eslint", "--format", "json", "."], ["eslint", "--format", "json", "."]],
    [["python3", "-m", "mypy"], ["python3", "-m", "mypy"]],
    [["g++", "--version"], ["g++", "--version"]],
    [["sh", ".ai/run.sh", "src/"], ["sh", ".ai/run.sh", "src/"]],
    // Later entries are data for the program, not commands: not checked here.
    [["cat", "../../etc/passwd", "/abs"], ["cat", "../../etc/passwd", "/abs"]],
    [[".ai/lint.sh"], [".ai/lint.sh"]],
    [["./.ai/tools/x", "-v"], [".ai/tools/x", "-v"]],
    [[".ai/a/../b.sh"], [".ai/b.sh"]],
    [[".ai/./x"], [".ai/x"]],
    [[".ai/../.ai/x"], [".ai/x"]],
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
  ])("refuses %j", (cwd, reason) => {
    expect(checkHelperCwd(cwd, "helpers[0].cwd")).toEqual({
      ok: false,
      errors: [{ path: "helpers[0].cwd", message: `helpers[0].cwd: ${reason}` }],
    });
  });
});
