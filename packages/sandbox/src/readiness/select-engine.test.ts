import { describe, expect, it } from "vitest";
import type { ProbeReport } from "./readiness-probe.js";
import type { EngineName } from "@reviewbot/core/engine-names";
import type { SandboxEngine } from "../sandbox-spec.js";
import { selectEngine } from "./select-engine.js";

// Engines are plain data here: selection never calls run().
const engine = (name: EngineName): SandboxEngine => ({
  name,
  sandboxed: name !== "none",
  runsInstalls: false,
  run: () => Promise.reject(new Error("not run")),
  health: () => Promise.resolve({ healthy: true }),
  close: () => Promise.resolve(),
});
const probe = (name: EngineName, ok: boolean): ProbeReport => ({ engine: name, ok, checks: [], reason: ok ? null : `${name} broken`, durationMs: 1 });
const none = engine("none");

describe("selectEngine", () => {
  const podman = { engine: engine("podman"), probe: probe("podman", true) };
  const brokenPodman = { engine: engine("podman"), probe: probe("podman", false) };
  const bwrap = { engine: engine("bwrap"), probe: probe("bwrap", true) };

  it.each([
    ["require", [podman, bwrap], "podman", null],
    ["require", [brokenPodman, bwrap], "bwrap", null],
    ["auto", [brokenPodman, bwrap], "bwrap", null],
    ["auto", [brokenPodman], "none", "UNSANDBOXED"],
    ["auto", [], "none", "UNSANDBOXED"],
    ["off", [podman], "none", "UNSANDBOXED"],
  ] as const)("%s with %j picks %s", (mode, candidates, expected, warning) => {
    const selection = selectEngine(mode, candidates, none);
    expect(selection.engine.name).toBe(expected);
    if (warning === null) expect(selection.warning).toBeNull();
    else expect(selection.warning).toContain(warning);
  });

  it("names engines that could not even be created", () => {
    const failedToCreate = probe("bwrap", false);
    expect(() => selectEngine("require", [brokenPodman], none, [brokenPodman.probe, failedToCreate])).toThrow(/podman broken; bwrap: bwrap broken/);
  });

  it("refuses under require when nothing passed, with every reason", () => {
    expect(() => selectEngine("require", [brokenPodman], none)).toThrow(/SANDBOX|readiness probe.*podman: podman broken/);
  });
});
