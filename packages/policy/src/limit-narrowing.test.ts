import { describe, expect, it } from "vitest";
import { helperCeilings, narrowLimits } from "./limit-narrowing.js";
import { parseOperatorPolicy } from "./operator-policy.js";

const MiB = 1024 * 1024;
const operatorLimits = parseOperatorPolicy({}).limits;
const ceilings = helperCeilings(operatorLimits);

describe("narrowLimits", () => {
  it("keeps every ceiling but the per-review concurrency", () => {
    expect(Object.keys(ceilings).sort()).toEqual(["cpus", "fsizeBytes", "memoryBytes", "nofile", "outputBytes", "pids", "timeoutSeconds", "tmpfsBytes"]);
  });

  it("grants the ceilings when nothing is requested", () => {
    const result = narrowLimits({}, operatorLimits, "helpers[0]");
    expect(result).toEqual({ ok: true, value: { limits: ceilings, warnings: [] } });
  });

  it.each([
    [{ memory_mb: 512 }, { memoryBytes: 512 * MiB }],
    [{ cpus: 0.5 }, { cpus: 0.5 }],
    [{ cpus: 0.01 }, { cpus: 0.01 }],
    [{ pids: 64 }, { pids: 64 }],
    [{ timeout_seconds: 60 }, { timeoutSeconds: 60 }],
    [{ timeout_seconds: 300, memory_mb: 1024, cpus: 1, pids: 256 }, ceilings],
  ])("grants a request at or below the ceiling: %j", (requests, expected) => {
    expect(narrowLimits(requests, operatorLimits, "helpers[0]")).toEqual({
      ok: true,
      value: { limits: { ...ceilings, ...expected }, warnings: [] },
    });
  });

  it.each([
    [{ memory_mb: 4096 }, { memoryBytes: 1024 * MiB }, "helpers[0].memory_mb: requested 4096 MiB, above the operator ceiling; granted 1024 MiB"],
    [{ timeout_seconds: 3600 }, { timeoutSeconds: 300 }, "helpers[0].timeout_seconds: requested 3600 s, above the operator ceiling; granted 300 s"],
    [{ cpus: 8 }, { cpus: 1 }, "helpers[0].cpus: requested 8, above the operator ceiling; granted 1"],
    [{ pids: 100_000 }, { pids: 256 }, "helpers[0].pids: requested 100000, above the operator ceiling; granted 256"],
    [{ memory_mb: 1e308 }, { memoryBytes: 1024 * MiB }, "helpers[0].memory_mb: requested 1e+308 MiB, above the operator ceiling; granted 1024 MiB"],
  ])("clamps a request above the ceiling and says so: %j", (requests, granted, warning) => {
    expect(narrowLimits(requests, operatorLimits, "helpers[0]")).toEqual({
      ok: true,
      value: { limits: { ...ceilings, ...granted }, warnings: [warning] },
    });
  });

  it.each([
    [{ memory_mb: 0 }, "helpers[0].memory_mb: 0 is not positive"],
    [{ memory_mb: -1 }, "helpers[0].memory_mb: -1 is not positive"],
    [{ memory_mb: 1.5 }, "helpers[0].memory_mb: 1.5 is not a whole number"],
    [{ memory_mb: Number.NaN }, "helpers[0].memory_mb: NaN is not a finite number"],
    [{ timeout_seconds: Number.POSITIVE_INFINITY }, "helpers[0].timeout_seconds: Infinity is not a finite number"],
    [{ timeout_seconds: 0 }, "helpers[0].timeout_seconds: 0 is not positive"],
    [{ timeout_seconds: 0.5 }, "helpers[0].timeout_seconds: 0.5 is not a whole number"],
    [{ cpus: -1 }, "helpers[0].cpus: -1 is not positive"],
    [{ cpus: 0.001 }, "helpers[0].cpus: 0.001 is below the minimum of 0.01"],
    [{ pids: 2.5 }, "helpers[0].pids: 2.5 is not a whole number"],
  ])("rejects %j", (requests, message) => {
    expect(narrowLimits(requests, operatorLimits, "helpers[0]")).toEqual({
      ok: false,
      errors: [{ path: message.slice(0, message.indexOf(":")), message }],
    });
  });

  it("reports every bad request at once", () => {
    const result = narrowLimits({ memory_mb: 0, pids: -5, cpus: 2 }, operatorLimits, "helpers[3]");
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual(["helpers[3].memory_mb: 0 is not positive", "helpers[3].pids: -5 is not positive"]);
  });
});
