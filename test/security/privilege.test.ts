import Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { DENIED_SYSCALLS } from "@reviewbot/sandbox/denied-syscalls";
import { PYTHON_IMAGE } from "../support/attack-repo.js";
import { ISOLATION_ENGINES } from "../support/attack-engines.js";
import { expectFacts, useAttackSuite, useEngine } from "../support/attack-suite.js";
import { BASE_IMAGE } from "../support/sandbox-specs.js";

const ZERO_CAPS = "0000000000000000";

/**
 * Calls every system call the sandbox profile denies (zero arguments: harmless where allowed, the
 * caller has no capability) and prints how each ended: `allowed`, or the errno's name.
 */
const DENIED_SYSCALL_PROBE = [
  "exec python3 -c '",
  "import ctypes, errno",
  "libc = ctypes.CDLL(None, use_errno=True)",
  `for name, number in ${JSON.stringify(DENIED_SYSCALLS).replaceAll("'", "")}.items():`,
  "    ctypes.set_errno(0)",
  "    result = libc.syscall(number, 0, 0, 0, 0, 0, 0)",
  '    print(name + "=" + ("allowed" if result != -1 else errno.errorcode.get(ctypes.get_errno(), "?")))',
  "'",
].join("\n");

/** The answers of a seccomp filter: ours says EPERM (bwrap), the engine profile's default ENOSYS. */
const FILTERED = /^(EPERM|ENOSYS)$/;

const ATTACKS = {
  "denied-syscalls": DENIED_SYSCALL_PROBE,
  capabilities: "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \\t' | tr ':' '='",
  setuid: [
    "echo \"setuid_files=$(find / -xdev -perm /6000 -type f 2>/dev/null | tr '\\n' ' ')\"",
    "echo \"tmp_options=$(grep ' /tmp ' /proc/mounts | cut -d' ' -f4)\"",
    "cp /bin/sh /tmp/sh 2>/dev/null",
    "if chmod u+s /tmp/sh 2>/dev/null; then echo chmod_setuid=done; else echo chmod_setuid=refused; fi",
    'echo "copy_uid=$(/tmp/sh -c "id -u" 2>/dev/null || echo not-run)"',
  ].join("\n"),
  namespaces: [
    "i=0",
    "for flags in -U -Ur -m -n -p -i -u; do",
    '  i=$((i+1)); if unshare $flags --fork true 2>/dev/null; then echo "unshare$i=created"; else echo "unshare$i=refused"; fi',
    "done",
  ].join("\n"),
  mount: [
    "mkdir -p /tmp/m",
    "if mount -t tmpfs none /tmp/m 2>/dev/null; then echo mount_tmpfs=done; else echo mount_tmpfs=refused; fi",
    "if mount --bind /work /tmp/m 2>/dev/null; then echo mount_bind=done; else echo mount_bind=refused; fi",
    "if mount -t proc proc /tmp/m 2>/dev/null; then echo mount_proc=done; else echo mount_proc=refused; fi",
  ].join("\n"),
  tiocsti: [
    "exec python3 -c '",
    "import errno, fcntl, os, sys, termios",
    "def inject(name, fd):",
    "    try:",
    '        fcntl.ioctl(fd, termios.TIOCSTI, b"x"); print(f"{name}=injected")',
    "    except OSError as e:",
    '        print(f"{name}={errno.errorcode[e.errno]}")',
    'for name, fd in (("stdin", 0), ("stdout", 1), ("stderr", 2)): inject(name, fd)',
    "try:",
    '    inject("tty", os.open("/dev/tty", os.O_RDWR))',
    "except OSError as e:",
    '    print(f"tty={errno.errorcode[e.errno]}")',
    "'",
  ].join("\n"),
  "su-sudo": [
    'if command -v sudo >/dev/null; then sudo -n id -u 2>/dev/null; echo "sudo=$(sudo -n true 2>/dev/null && echo root || echo refused)"; else echo sudo=absent; fi',
    "if command -v su >/dev/null; then echo \"su=$(su -c 'id -u' root < /dev/null 2>/dev/null || echo refused)\"; else echo su=absent; fi",
    'echo "uid=$(id -u)"',
  ].join("\n"),
};

const suite = useAttackSuite({ attacks: ATTACKS });

describe("negative controls", () => {
  it("on the host, as the worker: capabilities held, namespaces created", async () => {
    expect((await suite.runOnHost("capabilities")).stdout).not.toContain(`CapEff=${ZERO_CAPS}`);
    expect((await suite.runOnHost("namespaces")).stdout).toContain("unshare1=created");
  });

  describe("in a container whose profile lacks our seccomp filter", () => {
    const rootful = useEngine(ISOLATION_ENGINES[0] ?? expect.fail("no engines"));

    it("the same cases see no filter and create a user namespace", async () => {
      // Starts the engine's supervised service, whose socket the weakened engine shares.
      await suite.attack(rootful.opened, "capabilities");
      const [socketPath = "", stateDir = ""] = rootful.opened.privatePaths;
      const weakened = new ContainerEngine({ name: "podman", docker: new Dockerode({ socketPath }), seccomp: "unconfined", stateDir });
      const opened = { ...rootful.opened, label: "podman (seccomp unconfined)", engine: weakened };
      expectFacts(await suite.attack(opened, "capabilities"), { Seccomp: "0" });
      expect((await suite.attack(opened, "namespaces")).facts.get("unshare1")).toBe("created");
      // Without the filter the kernel answers these calls itself, and not all with EPERM/ENOSYS.
      const calls = await suite.attack(opened, "denied-syscalls", { helper: "attack-python" });
      const unfiltered = Object.keys(DENIED_SYSCALLS).filter((name) => !FILTERED.test(calls.facts.get(name) ?? ""));
      expect(unfiltered.length, calls.out).toBeGreaterThan(3);
    });
  });
});

describe.each(ISOLATION_ENGINES)("privilege attacks on $name", (underAttack) => {
  const engine = useEngine(underAttack, [BASE_IMAGE, PYTHON_IMAGE]);

  it("holds no capability, with no-new-privileges and seccomp filtering", async () => {
    const run = await suite.attack(engine.opened, "capabilities");
    expectFacts(run, { CapInh: ZERO_CAPS, CapPrm: ZERO_CAPS, CapEff: ZERO_CAPS, CapBnd: ZERO_CAPS, CapAmb: ZERO_CAPS, NoNewPrivs: "1", Seccomp: "2" });
  });

  it("finds no setuid binary, and a setuid copy in /tmp gains nothing", async () => {
    const run = await suite.attack(engine.opened, "setuid");
    expectFacts(run, { setuid_files: "" });
    expect(run.facts.get("tmp_options")?.split(",")).toEqual(expect.arrayContaining(["nosuid", "nodev"]));
    // Either /tmp is noexec and the copy never runs, or it runs as the sandbox user.
    const copyUid = run.facts.get("copy_uid") ?? "";
    expect(copyUid === "not-run" || engine.opened.isSandboxUid(Number(copyUid)), copyUid).toBe(true);
  });

  it("cannot create namespaces of any kind", async () => {
    const run = await suite.attack(engine.opened, "namespaces");
    expectFacts(run, Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`unshare${i + 1}`, "refused"])));
  });

  it("is refused every system call the profile denies (namespaces, mounts, keyrings, bpf, io_uring, ptrace, modules…)", async () => {
    const run = await suite.attack(engine.opened, "denied-syscalls", { helper: "attack-python" });
    for (const name of Object.keys(DENIED_SYSCALLS)) {
      expect(run.facts.get(name), `${name}; stderr: ${run.err}`).toMatch(FILTERED);
    }
  });

  it("cannot mount", async () => {
    const run = await suite.attack(engine.opened, "mount");
    expectFacts(run, { mount_tmpfs: "refused", mount_bind: "refused", mount_proc: "refused" });
  });

  it("cannot push input into a terminal with TIOCSTI", async () => {
    const run = await suite.attack(engine.opened, "tiocsti", { helper: "attack-python" });
    for (const name of ["stdin", "stdout", "stderr", "tty"]) {
      expect(run.facts.get(name), `${name}; stderr: ${run.err}`).toMatch(/^E[A-Z]+$/);
    }
  });

  it("cannot become root through su or sudo", async () => {
    const run = await suite.attack(engine.opened, "su-sudo");
    expect(run.facts.get("sudo")).toMatch(/^(absent|refused)$/);
    expect(run.facts.get("su")).toMatch(/^(absent|refused)$/);
    const uid = Number(run.facts.get("uid"));
    expect(engine.opened.isSandboxUid(uid), String(uid)).toBe(true);
    expect(run.out).not.toMatch(/^0$/m);
  });
});
