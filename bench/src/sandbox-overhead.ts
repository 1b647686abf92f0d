/**
 * Sandbox overhead benchmark. Prints, for a trivial helper (`true`), the median wall
 * time per run of: bare exec, the bubblewrap engine, the container engine (Podman API), and
 * `podman run --rm` with the same hardening flags, the container engine on its own private dockerd
 * and `docker run --rm` with the same flags against that daemon; then the ratios, and how several
 * helpers of one review share the concurrency limit. Not a test: it asserts nothing, it prints figures.
 *
 *   pnpm --filter @reviewbot/bench bench:sandbox      (BENCH_RUNS=41 for more samples)
 *
 * The dockerd uses BENCH_DOCKER_DATA_ROOT (default: the test suites' data root, where
 * scripts/setup.sh loads the helper images); BENCH_DOCKER=0 leaves Docker out.
 */
import { spawn } from "node:child_process";
import { chmod, copyFile, mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLimited } from "@reviewbot/review/pipeline/run-limited";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import type { SandboxEngine, SandboxLimits, SandboxSpec } from "@reviewbot/sandbox/sandbox-spec";
import { median } from "./median.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const IMAGE = "localhost/reviewbot/base:latest";
const CONTAINERS_CONF = fileURLToPath(new URL("../../infra/podman/containers.conf", import.meta.url));
const DOCKER_DATA_ROOT = process.env.BENCH_DOCKER_DATA_ROOT ?? "/var/tmp/reviewbot-test-docker";
const LIMITS: SandboxLimits = {
  timeoutMs: 30_000,
  memoryBytes: 256 * 1024 * 1024,
  cpus: 1,
  pids: 128,
  outputBytes: 1024 * 1024,
  tmpfsBytes: 16 * 1024 * 1024,
  nofile: 1024,
  fsizeBytes: 64 * 1024 * 1024,
};

async function timedMedian(label: string, once: () => Promise<unknown>): Promise<number> {
  await once(); // warm-up: image layers, page cache, first connection
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await once();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const result = median(times);
  console.log(
    `${label.padEnd(34)} median ${result.toFixed(1).padStart(7)} ms   (min ${(times[0] ?? 0).toFixed(1)}, max ${(times.at(-1) ?? 0).toFixed(1)}, n=${RUNS})`,
  );
  return result;
}

function exec(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: "ignore", env });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${file} exited ${String(code)}`));
    });
  });
}

/** `docker run` takes the work tree as a --mount: Docker refuses nosuid/nodev in a -v mode. */
function dockerRunArgs(socket: string, worktree: string, seccomp: string): string[] {
  const args = podmanRunArgs(worktree, seccomp);
  const volume = args.indexOf("-v");
  args.splice(volume, 2, "--mount", `type=bind,source=${worktree},target=/work,readonly`);
  return ["-H", `unix://${socket}`, ...args];
}

function podmanRunArgs(worktree: string, seccomp: string): string[] {
  return [
    "run",
    "--rm",
    "--network",
    "none",
    "--read-only",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--security-opt",
    `seccomp=${seccomp}`,
    "--user",
    "10001:10001",
    "--memory",
    String(LIMITS.memoryBytes),
    "--memory-swap",
    String(LIMITS.memoryBytes),
    "--cpus",
    String(LIMITS.cpus),
    "--pids-limit",
    String(LIMITS.pids),
    "--ulimit",
    `nofile=${LIMITS.nofile}:${LIMITS.nofile}`,
    "--ulimit",
    "nproc=1024:1024",
    "--ulimit",
    `fsize=${LIMITS.fsizeBytes}:${LIMITS.fsizeBytes}`,
    "--ulimit",
    "core=0:0",
    "--ipc",
    "private",
    "--init",
    "--log-driver",
    "none",
    "--tmpfs",
    `/tmp:rw,noexec,nosuid,nodev,size=${LIMITS.tmpfsBytes}`,
    "-v",
    `${worktree}:/work:ro,nosuid,nodev`,
    "-w",
    "/work",
    IMAGE,
    "true",
  ];
}

async function parallelReview(engine: SandboxEngine, spec: SandboxSpec, helpers: number, concurrency: number): Promise<number> {
  const start = performance.now();
  await runLimited(
    Array.from({ length: helpers }, () => spec),
    concurrency,
    (one) => engine.run(one),
  );
  return performance.now() - start;
}

async function main(): Promise<void> {
  const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-bench-"));
  await chmod(stateDir, 0o755);
  const worktree = join(stateDir, "worktree");
  await exec("mkdir", ["-m", "755", worktree]);
  console.log(`sandbox overhead, ${cpus().length} cores, ${new Date().toISOString()}, trivial helper \`true\`\n`);
  const spec: SandboxSpec = {
    argv: ["true"],
    image: IMAGE,
    worktree,
    cwd: ".",
    env: { PATH: "/usr/bin:/bin" },
    limits: LIMITS,
    labels: { jobId: "bench", helper: "true" },
  };
  const container = await createContainerEngine({ kind: "podman", stateDir: join(stateDir, "podman"), containersConf: CONTAINERS_CONF });
  const bwrap = await BwrapEngine.create({ images: [IMAGE], cacheDir: join(stateDir, "rootfs") });
  try {
    const bare = await timedMedian("bare exec (/bin/true)", () => exec("/bin/true", []));
    const bw = await timedMedian("bubblewrap engine", () => bwrap.run(spec));
    const engine = await timedMedian("container engine (Podman API)", () => container.run(spec));
    const seccomp = join(stateDir, "podman", "seccomp.json");
    const cli = await timedMedian("podman run --rm, same flags", () => exec("podman", podmanRunArgs(worktree, seccomp), { ...process.env, CONTAINERS_CONF }));
    const docker = process.env.BENCH_DOCKER === "0" ? null : await dockerFigures(stateDir, worktree, spec);
    console.log(`\nbubblewrap overhead over bare exec   ${(bw - bare).toFixed(1)} ms   (target ≤ 10 ms)`);
    console.log(`container engine / podman run --rm   ${(engine / cli).toFixed(2)}     (target ≤ 1.0, aim 0.5)`);
    if (docker !== null) console.log(`container engine / docker run --rm   ${(docker.engine / docker.cli).toFixed(2)}     (Docker API, private dockerd)`);
    const sleeper: SandboxSpec = { ...spec, argv: ["sleep", "0.5"] };
    const one = await parallelReview(container, sleeper, 1, 1);
    const four = await parallelReview(container, sleeper, 4, 2);
    console.log(
      `\n4 helpers (sleep 0.5) at concurrency 2: ${four.toFixed(0)} ms; one helper alone: ${one.toFixed(0)} ms; ratio ${(four / one).toFixed(2)} (2.0 = two lanes in parallel)`,
    );
  } finally {
    await container.close();
    await bwrap.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** The container engine on its own dockerd against `docker run --rm` with the same flags, same daemon. */
async function dockerFigures(stateDir: string, worktree: string, spec: SandboxSpec): Promise<{ engine: number; cli: number }> {
  const dir = join(stateDir, "docker");
  const engine = await createContainerEngine({ kind: "docker", stateDir: dir, dockerDataRoot: DOCKER_DATA_ROOT, containersConf: CONTAINERS_CONF });
  try {
    const ms = await timedMedian("container engine (Docker API)", () => engine.run(spec));
    // The profile the Podman engine derived and wrote; Docker's CLI reads a file and sends its JSON.
    const seccomp = join(dir, "seccomp.json");
    await copyFile(join(stateDir, "podman", "seccomp.json"), seccomp);
    const cli = await timedMedian("docker run --rm, same flags", () => exec("docker", dockerRunArgs(join(dir, "docker.sock"), worktree, seccomp)));
    return { engine: ms, cli };
  } finally {
    await engine.close();
  }
}

await main();
