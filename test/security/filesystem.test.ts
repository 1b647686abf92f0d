import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ISOLATION_ENGINES } from "../support/attack-engines.js";
import { expectFacts, useAttackSuite, useEngine } from "../support/attack-suite.js";
import { CANARY_PATHS } from "../support/canaries.js";
import { BASE_SOURCE_FILES } from "../support/git-fixture.js";

const ATTACKS = {
  "read-secrets": [
    "i=0",
    `for f in ${CANARY_PATHS.join(" ")}; do`,
    '  i=$((i+1)); if cat "$f" 2>/dev/null; then echo "read$i=yes"; else echo "read$i=no"; fi',
    "done",
  ].join("\n"),
  "host-etc": [
    'echo "hostname=$(cat /etc/hostname 2>/dev/null || echo none)"',
    // The host has this user (setup installs redis-server there); the helper images do not.
    "if grep -q '^redis:' /etc/passwd; then echo host_passwd=yes; else echo host_passwd=no; fi",
    "if cat /etc/shadow >/dev/null 2>&1; then echo shadow=readable; else echo shadow=unreadable; fi",
  ].join("\n"),
  "write-worktree": [
    'if { echo pwned > /work/pwned; } 2>/tmp/e; then echo new_file=written; else echo "new_file=$(cat /tmp/e)"; fi',
    'if { echo pwned >> /work/README.md; } 2>/tmp/e; then echo edit=written; else echo "edit=$(cat /tmp/e)"; fi',
    "echo \"work_mount=$(grep ' /work ' /proc/mounts | cut -d' ' -f4 | cut -d, -f1)\"",
    'if rm -f /work/src/util.ts 2>/tmp/e; then echo remove=done; else echo "remove=$(cat /tmp/e)"; fi',
  ].join("\n"),
  "write-root": [
    "i=0",
    "for p in /pwned /etc/pwned /usr/bin/pwned /var/pwned /work/.ai/pwned; do",
    '  i=$((i+1)); if (echo x > "$p") 2>/dev/null; then echo "write$i=written"; else echo "write$i=refused"; fi',
    "done",
    "if mkdir /etc/pwned.d 2>/dev/null; then echo mkdir_etc=done; else echo mkdir_etc=refused; fi",
  ].join("\n"),
  remount: [
    "if mount -o remount,rw / 2>/dev/null; then echo remount_root=done; else echo remount_root=refused; fi",
    "if mount -o remount,rw /work 2>/dev/null; then echo remount_work=done; else echo remount_work=refused; fi",
    "if touch /pwned /work/pwned 2>/dev/null; then echo after=writable; else echo after=read-only; fi",
  ].join("\n"),
  proc: [
    "if ls /proc/1/root/etc/reviewbot 2>/dev/null; then echo proc_root=listed; else echo proc_root=absent; fi",
    // `h` only prints help to the kernel log, should the write ever pass.
    "if echo h > /proc/sysrq-trigger 2>/dev/null; then echo sysrq=written; else echo sysrq=refused; fi",
    // Writing back the value it holds changes nothing, should the write ever pass.
    "cat /proc/sys/kernel/core_pattern > /tmp/cp",
    "if cat /tmp/cp > /proc/sys/kernel/core_pattern 2>/dev/null; then echo core_pattern=written; else echo core_pattern=refused; fi",
    "echo \"init=$(tr '\\0' ' ' < /proc/1/cmdline)\"",
    "echo \"pids=$(ls /proc | grep -c '^[0-9]')\"",
  ].join("\n"),
  sys: [
    'echo "pids_max=$(cat /sys/fs/cgroup/pids/pids.max)"',
    "if echo 100000 > /sys/fs/cgroup/pids/pids.max 2>/dev/null; then echo raise_pids=written; else echo raise_pids=refused; fi",
    "if echo -1 > /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null; then echo raise_memory=written; else echo raise_memory=refused; fi",
    'echo "pids_after=$(cat /sys/fs/cgroup/pids/pids.max)"',
    "cat /sys/kernel/uevent_helper > /tmp/u 2>/dev/null",
    "if cat /tmp/u > /sys/kernel/uevent_helper 2>/dev/null; then echo uevent_helper=written; else echo uevent_helper=refused; fi",
    "if touch /sys/pwned 2>/dev/null; then echo sys_create=done; else echo sys_create=refused; fi",
  ].join("\n"),
  fds: [
    // A child of the shell inherits whatever the engine leaked without close-on-exec; the shell's
    // own descriptors (its script, saved copies around redirections) are close-on-exec.
    "ls -l /proc/self/fd",
  ].join("\n"),
  sockets: [
    "i=0; IFS=:",
    "for p in /run/podman/podman.sock /var/run/docker.sock /run/docker.sock /run/user/0/podman/podman.sock $REVIEWBOT_WORKER_PATHS; do",
    '  i=$((i+1)); if [ -e "$p" ]; then echo "path$i=present"; else echo "path$i=absent"; fi',
    "done",
    "unset IFS",
    "echo \"sockets=$(find / -path /proc -prune -o -type s -print 2>/dev/null | tr '\\n' ' ')\"",
  ].join("\n"),
};

const suite = useAttackSuite({ attacks: ATTACKS });

describe("negative controls: the same cases on the host", () => {
  it("read the canaries and the host's users", async () => {
    const secrets = await suite.runOnHost("read-secrets");
    expect(secrets.stdout).toContain("read1=yes");
    for (const value of suite.canaries.values.slice(1)) expect(secrets.stdout).toContain(value);
    expect((await suite.runOnHost("host-etc")).stdout).toContain("host_passwd=yes");
  });
});

describe.each(ISOLATION_ENGINES)("filesystem attacks on $name", (underAttack) => {
  const engine = useEngine(underAttack);

  it("cannot read the worker's secret files", async () => {
    const run = await suite.attack(engine.opened, "read-secrets");
    expectFacts(run, { read1: "no", read2: "no", read3: "no" });
  });

  it("sees the image's /etc, not the host's", async () => {
    const run = await suite.attack(engine.opened, "host-etc");
    expectFacts(run, { host_passwd: "no", shadow: "unreadable" });
    expect(run.facts.get("hostname")).not.toBe(hostname());
  });

  it("cannot write to the worktree, and the host's copy is unchanged", async () => {
    const run = await suite.attack(engine.opened, "write-worktree");
    expectFacts(run, { work_mount: "ro" });
    // The tree belongs to root, so the permission check may answer before the read-only mount.
    for (const key of ["new_file", "edit", "remove"]) expect(run.facts.get(key)).toMatch(/Read-only file system|Permission denied/);
    const dir = suite.repo.checkout.dir;
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(await readFile(join(dir, "README.md"), "utf8")).toBe(BASE_SOURCE_FILES["README.md"]);
    expect(existsSync(join(dir, "src/util.ts"))).toBe(true);
  });

  it("cannot write to /, /etc, /usr, /var or the trusted .ai/", async () => {
    const run = await suite.attack(engine.opened, "write-root");
    expectFacts(run, { write1: "refused", write2: "refused", write3: "refused", write4: "refused", write5: "refused", mkdir_etc: "refused" });
    expect(existsSync(join(suite.repo.checkout.dir, ".ai/pwned"))).toBe(false);
  });

  it("cannot remount / or /work read-write", async () => {
    const run = await suite.attack(engine.opened, "remount");
    expectFacts(run, { remount_root: "refused", remount_work: "refused", after: "read-only" });
  });

  it("cannot escape through /proc", async () => {
    const run = await suite.attack(engine.opened, "proc");
    expectFacts(run, { proc_root: "absent", sysrq: "refused", core_pattern: "refused" });
    const hostInit = (await readFile("/proc/1/cmdline", "utf8")).replaceAll("\0", " ");
    // The sandbox's own init: Podman's catatonit or bwrap's PID-namespace init, never the host's.
    expect(run.facts.get("init")).toMatch(/^(\/run\/podman-init|\/sbin\/docker-init|\/usr\/bin\/bwrap) /);
    expect(run.facts.get("init")).not.toBe(hostInit);
    // Its own PID namespace: the shell, its children and an init, not the host's processes.
    expect(Number(run.facts.get("pids"))).toBeLessThan(10);
  });

  it("cannot raise its own cgroup limits or write to /sys", async () => {
    const run = await suite.attack(engine.opened, "sys");
    expectFacts(run, { raise_pids: "refused", raise_memory: "refused", uevent_helper: "refused", sys_create: "refused" });
    if (engine.opened.cgroupLimits) expectFacts(run, { pids_max: "64", pids_after: "64" });
    else expect(run.facts.get("pids_after")).toBe(run.facts.get("pids_max"));
  });

  it("inherits no descriptor beyond stdio", async () => {
    const run = await suite.attack(engine.opened, "fds");
    const fds = [...run.out.matchAll(/ (\d+) -> (.*)$/gm)].map(([, fd, target]) => [Number(fd), target ?? ""] as const);
    // `ls` sees stdio and the directory it is listing.
    expect(fds.map(([fd]) => fd)).toEqual([0, 1, 2, 3]);
    for (const [fd, target] of fds.slice(0, 3)) expect(target, `fd ${fd}`).toMatch(/^(pipe|socket):\[\d+\]$|^\/dev\/null$/);
    expect(fds[3]?.[1]).toMatch(/^\/proc\/\d+\/fd$/);
  });

  it("reaches no engine socket and no socket at all", async () => {
    const run = await suite.attack(engine.opened, "sockets", { env: { REVIEWBOT_WORKER_PATHS: engine.opened.privatePaths.join(":") } });
    const expected = Object.fromEntries(Array.from({ length: 4 + engine.opened.privatePaths.length }, (_, i) => [`path${i + 1}`, "absent"]));
    expectFacts(run, expected);
    expect(run.facts.get("sockets")).toBe("");
  });
});
