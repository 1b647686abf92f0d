import { describe, expect, it } from "vitest";
import { runOutcome } from "./run-outcome.js";
import type { SandboxResult } from "./sandbox-spec.js";
import { sandboxResult } from "./testing/sandbox-result.js";

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
    expect(runOutcome(sandboxResult(fields))).toBe(expected);
  });
});
