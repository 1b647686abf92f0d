import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";
import { openInstallHooks } from "./open-install-hooks.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "info",
    scrubber: new SecretScrubber(),
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe("openInstallHooks", () => {
  // The none engine accepts no mounts: it has no `installSupport`, so nothing may start for it.
  it.each([
    ["off", []],
    ["registry", [["install hooks need the container engine; they will not run", "none"]]],
  ] as const)("with installHooks %s on an engine without installSupport starts nothing", async (installHooks, logged) => {
    const { logger, lines } = capture();
    const opened = await openInstallHooks({ operator: parseOperatorPolicy({ installHooks }), engine: new NoneEngine(), caBundle: "/nonexistent", logger });
    expect(opened.runtime).toBeUndefined();
    await opened.close();
    expect(lines.map((line) => [line.msg, line.engine])).toEqual(logged);
  });

  // A container engine accepts mounts, but one without a source of run uids cannot give an install
  // its own uid (runsInstalls false): the proxy and the deps cache are not started for nothing.
  it("with installHooks registry on a container engine that cannot run installs starts nothing", async () => {
    const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-install-hooks-"));
    try {
      const engine = new ContainerEngine({ name: "podman", docker: new Dockerode({ socketPath: "/nonexistent.sock" }), seccomp: "", stateDir });
      expect(engine.installSupport).toBeDefined();
      expect(engine.runsInstalls).toBe(false);
      const { logger, lines } = capture();
      const opened = await openInstallHooks({ operator: parseOperatorPolicy({ installHooks: "registry" }), engine, caBundle: "/nonexistent", logger });
      expect(opened.runtime).toBeUndefined();
      await opened.close();
      expect(existsSync(join(stateDir, "registry"))).toBe(false);
      expect(lines.map((line) => [line.msg, line.engine, line.runsInstalls])).toEqual([
        ["install hooks need the container engine; they will not run", "podman", false],
      ]);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
