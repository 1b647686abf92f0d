import { describe, expect, it } from "vitest";
import type { SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import { sandboxResult } from "@reviewbot/sandbox/testing/sandbox-result";
import { missingProgram, shebangInterpreter } from "./missing-program.js";

function result(exitCode: number | null, stderr: string, extra: Partial<SandboxResult> = {}): SandboxResult {
  return sandboxResult({ exitCode, stderr: Buffer.from(stderr), ...extra });
}

const ARGV = ["ruff", "check", "."];

describe("missingProgram", () => {
  // The stderr lines below are what each engine printed on these hosts (bwrap 0.8, Podman 4.3 + catatonit, dash, GNU env).
  it.each([
    ["bwrap's exec", 1, "bwrap: execvp ruff: No such file or directory\n", "ruff"],
    ["catatonit's exec (Podman), which names no program", 1, "ERROR (catatonit:6): failed to exec pid1: No such file or directory\n", "ruff"],
    ["Docker's tini", 127, "[FATAL tini (7)] exec ruff failed: No such file or directory\n", "ruff"],
    ["the stdin wrapper's exec (Podman, the context script)", 127, "sh: 1: exec: /work/.ai/context-script: not found\n", "/work/.ai/context-script"],
    ["a #!/usr/bin/env interpreter", 127, "/usr/bin/env: 'python3': No such file or directory\n", "python3"],
    ["a #!/usr/bin/env interpreter, typographic quotes", 127, "/usr/bin/env: ‘python3’: No such file or directory\n", "python3"],
    ["a shell script's command (dash)", 127, "sh: 1: shellcheck: not found\n", "shellcheck"],
    ["a shell script's command (bash), after other output", 127, "checking…\nbash: line 3: shellcheck: command not found\n", "shellcheck"],
  ])("reads %s", (_label, exitCode, stderr, program) => {
    expect(missingProgram(result(exitCode, stderr), ARGV)).toBe(program);
  });

  it.each([
    ["a helper that found problems", 1, "src/a.py:1:1: E1 bad\n", {}],
    ["a program that is there but not executable", 1, "bwrap: execvp /work/.ai/x.sh: Permission denied\n", {}],
    ["an exec failure with the wrong exit status", 2, "bwrap: execvp ruff: No such file or directory\n", {}],
    ["an engine's exec failure after the helper's own output", 1, "hello\nbwrap: execvp ruff: No such file or directory\n", {}],
    ["'not found' with exit 1", 1, "sh: 1: shellcheck: not found\n", {}],
    ["a name with a space or quote", 127, "/usr/bin/env: 'py thon': No such file or directory\n", {}],
    ["a run killed at its deadline", 127, "sh: 1: x: not found\n", { timedOut: true, exitCode: null }],
    ["a run cut for output", 127, "sh: 1: x: not found\n", { outputTruncated: true }],
    ["a killed run", null, "", { signal: "SIGKILL" }],
  ])("is null for %s", (_label, exitCode, stderr, extra) => {
    expect(missingProgram(result(exitCode, stderr, extra), ARGV)).toBeNull();
  });
});

describe("shebangInterpreter", () => {
  it.each([
    ["#!/usr/bin/env python3\nprint(1)\n", "python3"],
    ["#!/usr/bin/env -S python3 -u\n", "python3"],
    ["#! /bin/bash -e\n", "/bin/bash"],
    ["#!/usr/bin/python3", "/usr/bin/python3"],
    ["#!/usr/bin/env\n", null],
    ["#!\n", null],
    ["print(1)\n", null],
    ["", null],
  ])("%j names %s", (head, expected) => {
    expect(shebangInterpreter(head)).toBe(expected);
  });
});
