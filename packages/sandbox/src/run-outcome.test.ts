import { describe, expect, it } from "vitest";
import { runOutcome } from "./run-outcome.js";
import type { SandboxResult } from "./sandbox-spec.js";

const ended: SandboxResult = {
  engine: "bwrap",
  sandboxed: true,
  exitCode: 0,
  signal: null,
  timedOut: false,
  cancelled: false,
  oomKilled: false,
  outputTruncated: false,
  stdout: Buffer.alloc(0),
  stderr: Buffer.alloc(0),
  durationMs: 1,
};

describe("runOutcome", () => {
  it.each<[string, Partial<SandboxResult>, string]>([
    ["a clean exit", {}, "ok"],
    ["a non-zero exit", { exitCode: 1 }, "nonzero"],
    ["a signal", { exitCode: null, signal: "SIGSEGV" }, "signal"],
    ["a timeout killed by SIGKILL", { exitCode: null, signal: "SIGKILL", timedOut: true }, "timeout"],
    ["an OOM kill", { exitCode: 137, oomKilled: true }, "oom"],
    ["truncated output with a clean exit", { outputTruncated: true }, "truncated"],
    ["a cancelled run that also timed out", { exitCode: null, cancelled: true, timedOut: true }, "cancelled"],
  ])("classifies %s, infrastructure before the program's verdict", (_name, fields, expected) => {
    expect(runOutcome({ ...ended, ...fields })).toBe(expected);
  });
});
