import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { SandboxLimits } from "@reviewbot/sandbox/sandbox-spec";
import { PYTHON_IMAGE } from "../support/attack-repo.js";
import { ENGINES_UNDER_ATTACK } from "../support/attack-engines.js";
import { expectFacts, useAttackSuite, useEngine, type AttackRun } from "../support/attack-suite.js";
import { withEventLoopLag } from "@reviewbot/core/testing/event-loop-lag";
import { hostProcessesMarked } from "../support/host-processes.js";
import { BASE_IMAGE, TEST_LIMITS } from "../support/sandbox-specs.js";

const MiB = 1024 * 1024;
/** Any pause of the worker's event loop longer than this during an attack is a failure. */
const MAX_LAG_MS = 1_000;

/** Prints `name=value` and stops the case when the limit it relies on is not what the worker set. */
const requireLimit = (name: string, read: string, expected: string): string =>
  [`v=$(${read})`, `echo "${name}=$v"`, `[ "$v" = "${expected}" ] || { echo "LIMIT MISSING: ${name}" >&2; exit 99; }`].join("\n");

const PIDS_MAX = "cat /sys/fs/cgroup/pids/pids.max";

const ATTACKS = {
  trivial: "echo ok",
  "fork-bomb": [
    requireLimit("pids_max", PIDS_MAX, String(TEST_LIMITS.pids)),
    "exec 2>/dev/null",
    "bomb() { bomb | bomb & }",
    "bomb",
    // dash exits when it cannot fork; spinning without forking keeps the attack going to the deadline.
    "while :; do :; done",
  ].join("\n"),
  "memory-hog": [
    requireLimit("memory_limit", "cat /sys/fs/cgroup/memory/memory.limit_in_bytes", String(TEST_LIMITS.memoryBytes)),
    "x=$(head -c 400000000 /dev/zero | tr '\\0' a)",
    'echo "survived=${#x}"',
  ].join("\n"),
  "tmpfs-fill": [
    requireLimit("tmp_kib", "df -k /tmp | tail -n 1 | tr -s ' ' | cut -d' ' -f2", String(TEST_LIMITS.tmpfsBytes / 1024)),
    "head -c 20000000 /dev/zero > /tmp/fill",
    'echo "fill_exit=$?"',
    'echo "fill_bytes=$(wc -c < /tmp/fill)"',
  ].join("\n"),
  "file-size": [
    // POSIX `ulimit -f` counts 512-byte blocks.
    requireLimit("fsize_blocks", "ulimit -f", String(MiB / 512)),
    "head -c 2000000 /dev/zero > /tmp/big",
    'echo "big_exit=$?"',
    'echo "big_bytes=$(wc -c < /tmp/big)"',
  ].join("\n"),
  "cpu-spin": "while :; do :; done",
  "ignore-term": ["trap '' TERM", "sleep 100", "echo survived=yes"].join("\n"),
  daemon: [
    // Double-forked and in their own sessions; one keeps the run's stdout open, one lets it go.
    '( setsid sh -c \'trap "" TERM HUP; while :; do sleep 1; done\' "daemon-$REVIEWBOT_MARKER" & )',
    '( setsid sh -c \'trap "" TERM HUP; while :; do sleep 1; done\' "quiet-$REVIEWBOT_MARKER" > /dev/null 2>&1 < /dev/null & )',
    "sleep 0.2",
    'echo "daemons=$(grep -l "[d]aemon-$REVIEWBOT_MARKER\\|[q]uiet-$REVIEWBOT_MARKER" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)"',
    "exit 0",
  ].join("\n"),
  flood: "yes flood",
  "fd-exhaustion": [
    requireLimit("nofile", "ulimit -n", String(TEST_LIMITS.nofile)),
    "exec python3 -c '",
    "import errno, os",
    "fds = []",
    "try:",
    '    while True: fds.append(os.open("/dev/null", os.O_RDONLY))',
    "except OSError as e:",
    '    print(f"opened={len(fds)}"); print(f"errno={errno.errorcode[e.errno]}")',
    "'",
  ].join("\n"),
};

interface ResourceCase {
  readonly name: keyof typeof ATTACKS;
  readonly limits?: Partial<SandboxLimits>;
  readonly helper?: string;
  readonly check: (run: AttackRun) => void;
}

const CASES: readonly ResourceCase[] = [
  {
    name: "fork-bomb",
    limits: { timeoutMs: 3_000 },
    check: (run) => {
      expectFacts(run, { pids_max: String(TEST_LIMITS.pids) });
      expect(run).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    },
  },
  {
    name: "memory-hog",
    check: (run) => {
      expectFacts(run, { memory_limit: String(TEST_LIMITS.memoryBytes) });
      expect(run.facts.get("survived")).toBeUndefined();
      expect(run).toMatchObject({ oomKilled: true, timedOut: false });
    },
  },
  {
    name: "tmpfs-fill",
    check: (run) => {
      expectFacts(run, { tmp_kib: String(TEST_LIMITS.tmpfsBytes / 1024) });
      expect(run.facts.get("fill_exit")).not.toBe("0");
      expect(Number(run.facts.get("fill_bytes"))).toBeLessThanOrEqual(TEST_LIMITS.tmpfsBytes);
      expect(run.err).toMatch(/No space left on device/);
    },
  },
  {
    name: "file-size",
    limits: { fsizeBytes: MiB },
    check: (run) => {
      expectFacts(run, { fsize_blocks: String(MiB / 512), big_bytes: String(MiB) });
      // 128 + SIGXFSZ (25).
      expect(run.facts.get("big_exit")).toBe("153");
    },
  },
  {
    name: "cpu-spin",
    limits: { timeoutMs: 1_500 },
    check: (run) => {
      expect(run).toMatchObject({ timedOut: true, signal: "SIGKILL", exitCode: null });
      expect(run.durationMs).toBeLessThan(1_500 + 5_000);
    },
  },
  {
    name: "ignore-term",
    limits: { timeoutMs: 1_500 },
    check: (run) => {
      expect(run).toMatchObject({ timedOut: true, signal: "SIGKILL", exitCode: null });
      expect(run.facts.get("survived")).toBeUndefined();
      expect(run.durationMs).toBeLessThan(1_500 + 5_000);
    },
  },
  {
    name: "daemon",
    limits: { timeoutMs: 3_000 },
    check: (run) => {
      expectFacts(run, { daemons: "2" });
      expect(run.durationMs).toBeLessThan(3_000 + 5_000);
    },
  },
  {
    name: "flood",
    check: (run) => {
      expect(run.outputTruncated).toBe(true);
      expect(run.stdout.length + run.stderr.length).toBeLessThanOrEqual(TEST_LIMITS.outputBytes);
      expect(run.signal).toBe("SIGKILL");
    },
  },
  {
    name: "fd-exhaustion",
    helper: "attack-python",
    check: (run) => {
      expectFacts(run, { nofile: String(TEST_LIMITS.nofile), errno: "EMFILE" });
      expect(Number(run.facts.get("opened"))).toBeLessThan(TEST_LIMITS.nofile);
    },
  },
];

const suite = useAttackSuite({ attacks: ATTACKS });

describe("negative control: the daemon case on the host", () => {
  it("leaves its daemons running, and the survivor check sees them", async () => {
    const marker = `marker-${randomUUID()}`;
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", REVIEWBOT_MARKER: marker };
    // Not execFile: that would wait for the daemon that keeps stdout open.
    const child = spawn("sh", ["attacks/daemon.sh"], { cwd: suite.repo.checkout.dir, env, stdio: ["ignore", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    await once(child, "exit");
    expect(stdout).toContain("daemons=2");
    const survivors = await hostProcessesMarked(marker);
    for (const survivor of survivors) process.kill(survivor.pid, "SIGKILL");
    child.stdout.destroy();
    expect(survivors.filter((survivor) => survivor.cmdline.includes(`daemon-${marker}`))).toHaveLength(1);
  });
});

describe.each(ENGINES_UNDER_ATTACK)("resource attacks on $name", (underAttack) => {
  const engine = useEngine(underAttack, [BASE_IMAGE, PYTHON_IMAGE]);

  it.each(CASES)("$name: held by its limit; the worker stays responsive, nothing survives, the next job runs", async (attackCase) => {
    const marker = `marker-${randomUUID()}`;
    const { result: run, maxLagMs } = await withEventLoopLag(() =>
      suite.attack(engine.opened, attackCase.name, {
        ...(attackCase.helper === undefined ? {} : { helper: attackCase.helper }),
        ...(attackCase.limits === undefined ? {} : { limits: attackCase.limits }),
        env: { REVIEWBOT_MARKER: marker },
      }),
    );
    attackCase.check(run);
    expect(maxLagMs, "the worker's event loop stalled").toBeLessThan(MAX_LAG_MS);
    // Whatever the case started is gone from the host once the run has returned (a moment for
    // the kernel to reap what the runtime killed).
    await expect.poll(() => hostProcessesMarked(marker), { timeout: 3_000, interval: 100 }).toEqual([]);
    const next = await suite.attack(engine.opened, "trivial");
    expect(next).toMatchObject({ exitCode: 0, timedOut: false, oomKilled: false, outputTruncated: false });
    expect(next.out).toBe("ok\n");
  });
});
