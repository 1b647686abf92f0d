import Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { ContainerEngine } from "./container/container-engine.js";
import { NoneEngine } from "./none-engine.js";
import { auditedEngine } from "./sandbox-audit.js";
import type { SandboxEngine } from "./sandbox-spec.js";

const logger = createLogger({ level: "silent", scrubber: new SecretScrubber() });
// Never asked anything: reading capabilities starts no service and opens no socket.
const container = new ContainerEngine({
  name: "podman",
  docker: new Dockerode({ socketPath: "/nonexistent.sock" }),
  seccomp: "",
  stateDir: "/var/cache/reviewbot/sandbox/podman",
});

describe("auditedEngine", () => {
  it.each<[string, SandboxEngine]>([
    ["a container engine", container],
    ["the none engine", new NoneEngine()],
  ])("forwards every capability of %s unchanged", (_name, engine) => {
    const audited = auditedEngine(engine, logger);
    expect({ name: audited.name, sandboxed: audited.sandboxed, runsInstalls: audited.runsInstalls, installSupport: audited.installSupport }).toEqual({
      name: engine.name,
      sandboxed: engine.sandboxed,
      runsInstalls: engine.runsInstalls,
      installSupport: engine.installSupport,
    });
  });

  it("hands install hooks the container engine's state directory", () => {
    expect(auditedEngine(container, logger).installSupport?.stateDir).toBe("/var/cache/reviewbot/sandbox/podman");
    expect(auditedEngine(new NoneEngine(), logger).installSupport).toBeUndefined();
  });
});
