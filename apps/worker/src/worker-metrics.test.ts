import { describe, expect, it } from "vitest";
import { createWorkerMetrics } from "./worker-metrics.js";

describe("createWorkerMetrics", () => {
  it("counts each sandbox run by engine and outcome, and timeouts and OOM kills apart", async () => {
    const metrics = createWorkerMetrics();
    metrics.countSandboxRun("bwrap", "timeout");
    metrics.countSandboxRun("bwrap", "ok");
    metrics.countSandboxRun("podman", "oom");
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^reviewbot_sandbox_runs_total\{engine="bwrap",outcome="timeout"\} 1$/m);
    expect(text).toMatch(/^reviewbot_sandbox_runs_total\{engine="bwrap",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^reviewbot_sandbox_timeouts_total\{engine="bwrap"\} 1$/m);
    expect(text).toMatch(/^reviewbot_sandbox_oom_kills_total\{engine="podman"\} 1$/m);
    // Control: an ordinary run is no kill.
    expect(text).not.toMatch(/^reviewbot_sandbox_timeouts_total\{engine="podman"\}/m);
  });
});
