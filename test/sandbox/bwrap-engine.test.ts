import { randomUUID } from "node:crypto";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { BASE_IMAGE, sandboxSpec, shellSpec, TEST_LIMITS } from "../support/sandbox-specs.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { leftoverRunCgroups, useBwrapEngine } from "./bwrap-fixture.js";

// Planted before the engine starts: nothing of the worker's environment may reach a sandbox.
const CANARY = `canary-${randomUUID()}`;
process.env.REVIEWBOT_TEST_CANARY = CANARY;

const bwrap = useBwrapEngine();

afterEach(async () => {
  expect(await leftoverRunCgroups()).toEqual([]);
});

function facts(stdout: Buffer): Map<string, string> {
  const lines = stdout.toString("utf8").split("\n");
  return new Map(lines.filter((line) => line.includes("=")).map((line) => line.split("=", 2) as [string, string]));
}

describe("bwrap engine: isolation", () => {
  it("runs as uid 10001 inside and as one pool uid outside, never host root or the worker", async () => {
    const marker = `marker-${randomUUID()}`;
    const run = bwrap.engine.run(shellSpec(bwrap.worktree, `echo "uid=$(id -u) gid=$(id -g)"; sleep 1; : ${marker}`));
    // bwrap, its PID namespace's init and the sandboxed shell, seen from the host.
    let host: Awaited<ReturnType<typeof hostProcessesMarked>> = [];
    for (let tries = 0; tries < 50 && host.length < 3; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      host = await hostProcessesMarked(marker);
    }
    const result = await run;
    expect(result.stdout.toString()).toBe("uid=10001 gid=10001\n");
    expect(host.length).toBe(3);
    const [uid = 0] = host[0]?.uids ?? [];
    for (const process of host) expect(process.uids).toEqual([uid, uid, uid, uid]);
    const range = bwrap.engine.uids?.range ?? expect.fail("a root worker's bwrap engine has a uid pool");
    expect(uid).toBeGreaterThanOrEqual(range.first);
    expect(uid).toBeLessThan(range.first + range.count);
    expect(uid).not.toBe(process.getuid?.());
  });

  it("has no capabilities, no-new-privileges, seccomp filtering, only loopback and a fixed hostname", async () => {
    const script = [
      "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \\t' | tr ':' '='",
      "echo \"ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ',')\"",
      'echo "hostname=$(hostname)"',
    ].join("\n");
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, script));
    const seen = facts(result.stdout);
    expect(Object.fromEntries(seen)).toEqual({
      CapEff: "0000000000000000",
      CapPrm: "0000000000000000",
      CapBnd: "0000000000000000",
      NoNewPrivs: "1",
      Seccomp: "2",
      ifaces: "lo,",
      hostname: "sandbox",
    });
  });

  it("gives the sandbox the spec's environment and nothing of the worker's, not even through /proc/1/environ", async () => {
    const env = { PATH: "/usr/bin:/bin", MARK: "spec-value" };
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "cat /proc/1/environ; echo ---; cat /proc/self/environ", { env }));
    const [init = "", own = ""] = result.stdout.toString().split("---\n");
    expect(process.env.REVIEWBOT_TEST_CANARY).toBe(CANARY);
    expect(result.stdout.toString()).not.toContain(CANARY);
    // bwrap (the namespace's pid 1) was started with an empty environment; the cgroup-joining
    // shell in front of it adds only its working directory.
    expect(["", "PWD=/\0"]).toContain(init);
    // cat's environment: the spec's, plus the working directory the shell exports.
    expect(own.split("\0").filter(Boolean).sort()).toEqual(["MARK=spec-value", "PATH=/usr/bin:/bin", "PWD=/work"]);
  });

  it("shows no host path and no environment value in the sandbox's /proc/1/cmdline", async () => {
    const env = { PATH: "/usr/bin:/bin", MARK: "value-only-in-the-environment" };
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "tr '\\0' ' ' < /proc/1/cmdline", { env }));
    const cmdline = result.stdout.toString();
    expect(cmdline).toMatch(/bwrap --args 4 -- sh -c/);
    expect(cmdline).not.toContain(bwrap.worktree);
    expect(cmdline).not.toContain(bwrap.cacheDir);
    expect(cmdline).not.toContain("value-only-in-the-environment");
  });

  it("mounts the worktree and the root read-only and shows no host file", async () => {
    const script = [
      "cat /work/hello.txt",
      "touch /work/x 2>/dev/null && echo work=writable || echo work=read-only",
      "touch /x 2>/dev/null && echo root=writable || echo root=read-only",
      "echo y >> /etc/passwd 2>/dev/null && echo etc=writable || echo etc=read-only",
      // Present on the host, absent from the base image.
      "test -e /usr/bin/podman && echo host=visible || echo host=hidden",
      'echo "home=$(ls -A /home | wc -l)"',
    ].join("\n");
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, script));
    expect(result.stdout.toString()).toBe("hello from the work tree\nwork=read-only\nroot=read-only\netc=read-only\nhost=hidden\nhome=0\n");
    await expect(access(join(bwrap.worktree, "x"))).rejects.toThrow();
  });

  it("gives a writable /tmp that stops at tmpfsBytes", async () => {
    const limits = { ...TEST_LIMITS, tmpfsBytes: 4 * 1024 * 1024 };
    const script = "head -c 1000000 /dev/zero > /tmp/small && echo small=ok; head -c 8000000 /dev/zero > /tmp/big || echo big=refused";
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, script, { limits }));
    expect(result.stdout.toString()).toBe("small=ok\nbig=refused\n");
    expect(result.stderr.toString()).toMatch(/No space left on device/);
  });

  it("shows its own memory and pids limits read-only, and applies the rlimits", async () => {
    const script = [
      'echo "memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"',
      'echo "pids=$(cat /sys/fs/cgroup/pids/pids.max)"',
      "echo 1 > /sys/fs/cgroup/pids/pids.max 2>/dev/null && echo cgroup=writable || echo cgroup=read-only",
      'echo "nofile=$(ulimit -n)"',
      'echo "core=$(ulimit -c)"',
    ].join("\n");
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, script));
    expect(Object.fromEntries(facts(result.stdout))).toEqual({
      memory: String(TEST_LIMITS.memoryBytes),
      pids: String(TEST_LIMITS.pids),
      cgroup: "read-only",
      nofile: String(TEST_LIMITS.nofile),
      core: "0",
    });
  });

  it("passes no descriptor besides stdin, stdout and stderr", async () => {
    // ls lists the shell's descriptors, not its own.
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "ls /proc/$$/fd"));
    expect(result.stdout.toString()).toBe("0\n1\n2\n");
  });
});

describe("bwrap engine: input and output", () => {
  it("passes stdin, keeps stdout and stderr apart and reports the exit code", async () => {
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "cat; echo oops >&2; exit 42", { stdin: Buffer.from("in\0put\n") }));
    expect(result).toMatchObject({ engine: "bwrap", sandboxed: true, exitCode: 42, signal: null, timedOut: false, oomKilled: false });
    expect(result.stdout).toEqual(Buffer.from("in\0put\n"));
    expect(result.stderr.toString()).toBe("oops\n");
  });

  it("closes stdin when the spec has none", async () => {
    const result = await bwrap.engine.run(sandboxSpec(bwrap.worktree, ["cat"]));
    expect(result).toMatchObject({ exitCode: 0, stdout: Buffer.alloc(0) });
  });

  it("returns invalid UTF-8 and NUL bytes exactly", async () => {
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "printf 'a\\000b\\377\\376c'; printf '\\200\\000' >&2"));
    expect([...result.stdout]).toEqual([0x61, 0, 0x62, 0xff, 0xfe, 0x63]);
    expect([...result.stderr]).toEqual([0x80, 0]);
  });

  it("runs in the cwd under /work and refuses one that leaves it", async () => {
    const result = await bwrap.engine.run(shellSpec(bwrap.worktree, "pwd", { cwd: "./" }));
    expect(result.stdout.toString()).toBe("/work\n");
    await expect(bwrap.engine.run(shellSpec(bwrap.worktree, "pwd", { cwd: "../etc" }))).rejects.toMatchObject({ code: "POLICY_DENIED" });
  });

  it("refuses an image it did not prepare, naming it", async () => {
    const image = "localhost/reviewbot/not-prepared:latest";
    await expect(bwrap.engine.run(sandboxSpec(bwrap.worktree, ["true"], { image }))).rejects.toMatchObject({
      code: "IMAGE_MISSING",
      message: expect.stringContaining(image) as unknown,
    });
  });

  it("refuses a worktree the sandbox user cannot reach", async () => {
    await expect(bwrap.engine.run(sandboxSpec("/root", ["true"]))).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE" });
  });
});

describe("bwrap engine: concurrency", () => {
  it("runs several sandboxes at once, each with its own result", async () => {
    const runs = [1, 2, 3, 4].map((n) => bwrap.engine.run(shellSpec(bwrap.worktree, `sleep 0.2; echo ${n}; exit ${n}`)));
    const results = await Promise.all(runs);
    expect(results.map((result) => [result.exitCode, result.stdout.toString()])).toEqual([1, 2, 3, 4].map((n) => [n, `${n}\n`]));
  });
});

describe("bwrap engine: close", () => {
  it("kills runs in flight and refuses new ones", async () => {
    const engine = await BwrapEngine.create({ images: [BASE_IMAGE], cacheDir: bwrap.cacheDir });
    const run = engine.run(shellSpec(bwrap.worktree, "trap '' TERM; sleep 100"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await engine.close();
    const result = await run;
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ signal: "SIGKILL", timedOut: false });
    await expect(engine.run(sandboxSpec(bwrap.worktree, ["true"]))).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE" });
    await engine.close();
  });
});
