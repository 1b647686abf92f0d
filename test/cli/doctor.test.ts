import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runCli, type CliResult } from "../support/cli-runner.js";

const LOAD_DOCKER = fileURLToPath(new URL("../../infra/images/load-docker.sh", import.meta.url));

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

  it("passes on Docker: its own dockerd (root, no socket configured), every check seen from inside, stopped afterwards", async () => {
    const dockerDir = "/var/cache/reviewbot/sandbox/docker";
    // What scripts/setup.sh does (cached by image id).
    await promisify(execFile)(LOAD_DOCKER, [dockerDir]);
    const { status, stdout } = await doctor({ REVIEWBOT_ENGINE: "docker" });
    expect(stdout).toMatch(/^engine docker +ready/m);
    expect(stdout).toMatch(/^ {2}ok +seccomp +2$/m);
    expect(stdout).toMatch(/^ {2}ok +network +lo,$/m);
    expect(stdout).toMatch(/^image +ok +localhost\/reviewbot\/base:latest$/m);
    expect(stdout).toMatch(/^selected +docker$/m);
    expect(status).toBe(0);
    expect(await processesMentioning(`${dockerDir}/data`)).toEqual([]);
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

  it.each([
    ["REVIEWBOT_SANDBOX", "on"],
    ["REVIEWBOT_SANDBOX", "REQUIRE"],
    ["REVIEWBOT_ENGINE", "lxc"],
    ["REVIEWBOT_SANBOX", "off"],
  ])("refuses %s=%s at start-up, naming it", async (name, value) => {
    const { status, stderr } = await doctor({ [name]: value });
    expect(status).toBe(2);
    expect(stderr).toMatch(/CONFIG_INVALID/);
    expect(stderr).toContain(name === "REVIEWBOT_SANDBOX" ? "require, auto, off" : name);
  });

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

/** Host processes whose command line mentions `text` (a private dockerd names its data root). */
async function processesMentioning(text: string): Promise<string[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const lines = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")));
  return lines.filter((line) => line.includes(text)).map((line) => line.replaceAll("\0", " "));
}
