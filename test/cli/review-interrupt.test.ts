import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABELS } from "@reviewbot/sandbox/container-profile";
import { CLI } from "../support/cli-runner.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { createReviewRepo, helperEntry } from "../support/review-repos.js";

let root = "";
let repo = "";
// Unique, so that other suites' containers on the same host never count.
const HELPER = `sleeper${process.pid}`;

beforeAll(async () => {
  root = await reachableTempDir("cli-interrupt");
  repo = createReviewRepo(join(root, "repo"), {
    helpers: [helperEntry(HELPER, ["sleep", "60"], { timeout_seconds: 120 })],
    fork: (tree) => {
      tree.write("src/x.py", "x = 1\n");
    },
  }).dir;
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function helperContainers(docker: Dockerode): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.helper}=${HELPER}`] } });
  return list.map((info) => info.Id);
}

describe("reviewbot review interrupted", () => {
  it("SIGTERM mid-review kills and removes the running sandbox, then exits 143", async () => {
    const cache = join(root, "cache");
    const child = spawn(process.execPath, [CLI, "review", "--repo", repo, "--base", "main", "--head", "fork", "--engine", "podman"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", REVIEWBOT_CACHE_DIR: cache },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => {
      child.once("exit", resolve);
    });
    const docker = new Dockerode({ socketPath: join(cache, "sandbox", "podman", "podman.sock") });
    let running: string[] = [];
    for (let tries = 0; tries < 300 && running.length === 0; tries += 1) {
      running = await helperContainers(docker).catch(() => []);
      if (running.length === 0) await sleep(100);
    }
    expect(running, "the helper's container never appeared").toHaveLength(1);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    // The CLI stopped its private Podman service; ask the host's storage directly.
    const host = spawn("podman", ["ps", "--all", "--quiet", "--filter", `label=${LABELS.helper}=${HELPER}`], {
      env: { ...process.env, CONTAINERS_CONF: join(import.meta.dirname, "../../infra/podman/containers.conf") },
    });
    let left = "";
    host.stdout.on("data", (chunk: Buffer) => {
      left += chunk.toString();
    });
    await new Promise((resolve) => host.once("close", resolve));
    expect(left.trim()).toBe("");
  });
});
