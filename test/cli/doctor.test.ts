import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, type CliResult } from "../support/cli-runner.js";

function doctor(env: Record<string, string>): Promise<CliResult> {
  return runCli(["doctor"], env);
}

describe("reviewbot doctor", () => {
  it("probes podman and bubblewrap from inside and selects podman under require", async () => {
    const { status, stdout } = await doctor({});
    expect(stdout).toMatch(/^engine podman +ready/m);
    expect(stdout).toMatch(/^engine bwrap +ready/m);
    expect(stdout).toMatch(/^ {2}ok +seccomp +2$/m);
    expect(stdout).toMatch(/^selected +podman$/m);
    expect(status).toBe(0);
  });

  it("exits 1 with the reason when the required engine is unavailable", async () => {
    const { status, stdout } = await doctor({ REVIEWBOT_ENGINE: "docker", REVIEWBOT_DOCKER_SOCKET: "/nonexistent/docker.sock" });
    expect(stdout).toMatch(/^engine docker +NOT READY/m);
    expect(stdout).toMatch(/^selected +none: no sandbox engine passed its readiness probe \(docker: .*nonexistent/m);
    expect(status).toBe(1);
  });

  it("falls back loudly under auto", async () => {
    const { status, stdout } = await doctor({ REVIEWBOT_SANDBOX: "auto", REVIEWBOT_ENGINE: "docker", REVIEWBOT_DOCKER_SOCKET: "/nonexistent/docker.sock" });
    expect(stdout).toMatch(/^selected +none {2}WARNING: no sandbox engine is ready, helpers run UNSANDBOXED/m);
    expect(status).toBe(0);
  });

  it.each([["REVIEWBOT_SANDBOX", "on"], ["REVIEWBOT_SANDBOX", "REQUIRE"], ["REVIEWBOT_ENGINE", "lxc"], ["REVIEWBOT_SANBOX", "off"]])(
    "refuses %s=%s at start-up, naming it",
    async (name, value) => {
      const { status, stderr } = await doctor({ [name]: value });
      expect(status).toBe(2);
      expect(stderr).toMatch(/CONFIG_INVALID/);
      expect(stderr).toContain(name === "REVIEWBOT_SANDBOX" ? "require, auto, off" : name);
    },
  );

  it("refuses an operator policy file with an unknown key, naming it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reviewbot-policy-"));
    const file = join(dir, "policy.json");
    await writeFile(file, JSON.stringify({ limits: { timeoutSecond: 5 } }));
    const { status, stderr } = await doctor({ REVIEWBOT_POLICY_FILE: file });
    await rm(dir, { recursive: true, force: true });
    expect(status).toBe(2);
    expect(stderr).toContain("limits.timeoutSecond: unknown key");
  });

  it("fails when an allowlisted image is missing, naming it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "reviewbot-policy-"));
    const file = join(dir, "policy.json");
    await writeFile(file, JSON.stringify({ images: { base: "localhost/reviewbot/base:latest", ghost: "localhost/reviewbot/ghost:latest" } }));
    const { status, stdout } = await doctor({ REVIEWBOT_POLICY_FILE: file });
    await rm(dir, { recursive: true, force: true });
    expect(stdout).toMatch(/^image +ok +localhost\/reviewbot\/base:latest$/m);
    expect(stdout).toMatch(/^image +FAIL localhost\/reviewbot\/ghost:latest: .*not present/m);
    expect(status).toBe(1);
  });
});

