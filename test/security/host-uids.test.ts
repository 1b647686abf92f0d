import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { DEFAULT_SANDBOX_UIDS, HostUidPool } from "@reviewbot/sandbox/host-uid-pool";
import { PYTHON_IMAGE } from "../support/attack-repo.js";
import { useEngine } from "../support/attack-suite.js";
import { ENGINES_UNDER_ATTACK, type OpenedEngine } from "../support/attack-engines.js";
import { hostProcessesMarked, type HostProcess } from "../support/host-processes.js";
import { inRange } from "../support/sandbox-uids.js";
import { BASE_IMAGE, sandboxSpec, shellSpec } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// Issue 12: an escape from one PR's helper must not land as the same host user as another PR's
// helper running at the same time. Seen from the host, not from inside.

/** Starts a helper that holds `marker` for a while, waits until the host sees its processes, and returns them with the run. */
async function holdHelper(opened: OpenedEngine, worktree: string, marker: string): Promise<{ processes: HostProcess[]; done: Promise<unknown> }> {
  const done = opened.engine.run(shellSpec(worktree, `sleep 3; : ${marker}`));
  for (let tries = 0; tries < 150; tries += 1) {
    const processes = (await hostProcessesMarked(marker)).filter((process) => process.cmdline.startsWith("sh -c sleep"));
    if (processes.length > 0) return { processes, done };
    await sleep(20);
  }
  await done;
  throw new Error(`${opened.label}: the helper marked ${marker} never showed on the host`);
}

const hostUid = (processes: readonly HostProcess[]): number[] => [...new Set(processes.flatMap((process) => process.uids))];

// From inside, a helper tries the lease of a uid the worker holds: connect to it, and bind its name.
const LEASE_ATTACK = [
  "import socket, sys",
  "name = '\\0' + sys.argv[1]",
  "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
  "try:",
  "    s.connect(name); print('connect=reached')",
  "except OSError as e:",
  "    print('connect=refused', e.errno)",
  "b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
  "try:",
  "    b.bind(name); print('bind=own-namespace')",
  "except OSError as e:",
  "    print('bind=refused', e.errno)",
].join("\n");

/** Whether a connection to the abstract socket `name` is accepted, from the host. */
function reachable(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(`\0${name}`, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
  });
}

describe.each(ENGINES_UNDER_ATTACK)("host uids of concurrent helpers on $name", (underAttack) => {
  const engine = useEngine(underAttack, [BASE_IMAGE, PYTHON_IMAGE]);

  it("a helper can neither reach a lease the worker holds nor take one from it (negative control: the host reaches it)", async () => {
    const namespace = `reviewbot-test-lease-${randomUUID()}`;
    const pool = await HostUidPool.create({ first: DEFAULT_SANDBOX_UIDS.first + DEFAULT_SANDBOX_UIDS.count - 2, count: 1 }, undefined, namespace);
    const held = await pool.acquire();
    const name = `${namespace}-${String(held.uid)}`;
    try {
      expect(await reachable(name)).toBe(true);
      const worktree = await reachableTempDir("host-uids-lease");
      const result = await engine.opened.engine.run(
        sandboxSpec(worktree, ["python3", "-c", LEASE_ATTACK, name], { image: PYTHON_IMAGE }),
      );
      const out = result.stdout.toString("utf8");
      expect(out, result.stderr.toString("utf8")).toMatch(/^connect=refused \d+$/m);
      // Bound in the helper's own network namespace, if at all: the host's lease is untouched.
      expect(out).toMatch(/^bind=(own-namespace|refused \d+)$/m);
      expect(await reachable(name)).toBe(true);
    } finally {
      await held.release();
    }
    expect(await reachable(name)).toBe(false);
  });

  it("runs two helpers in flight as two different host uids, neither root nor the worker's, both from the pool", async () => {
    const worktree = await reachableTempDir("host-uids");
    const first = await holdHelper(engine.opened, worktree, `first-${randomUUID()}`);
    const second = await holdHelper(engine.opened, worktree, `second-${randomUUID()}`);
    const [a, b] = [hostUid(first.processes), hostUid(second.processes)];
    await Promise.all([first.done, second.done]);
    // Each run is one host user (real, effective, saved and filesystem uid alike)...
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    // ...and not the other's.
    expect(a[0]).not.toBe(b[0]);
    for (const uid of [...a, ...b]) {
      expect(uid).not.toBe(0);
      expect(uid).not.toBe(process.getuid?.());
      expect(inRange(DEFAULT_SANDBOX_UIDS, uid), String(uid)).toBe(true);
    }
  });
});

describe("a uid pool that runs out (negative control: fail closed, never share)", () => {
  it("refuses a second run in flight when the pool has one uid, and runs it once the first is done", async () => {
    const worktree = await reachableTempDir("host-uids-one");
    const cacheDir = await reachableTempDir("host-uids-cache");
    const uids = await HostUidPool.create({ first: DEFAULT_SANDBOX_UIDS.first + DEFAULT_SANDBOX_UIDS.count - 1, count: 1 }, undefined, `reviewbot-test-one-${randomUUID()}`);
    const engine = await BwrapEngine.create({ images: [BASE_IMAGE], cacheDir, uids });
    const opened: OpenedEngine = { label: "bwrap (one uid)", engine, privatePaths: [], cgroupLimits: engine.cgroupLimits, isSandboxUid: () => true, close: () => engine.close() };
    try {
      const first = await holdHelper(opened, worktree, `only-${randomUUID()}`);
      await expect(engine.run(shellSpec(worktree, "true"))).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE", message: expect.stringContaining("is held") as unknown });
      await first.done;
      await expect(engine.run(shellSpec(worktree, "echo again"))).resolves.toMatchObject({ exitCode: 0 });
    } finally {
      await engine.close();
    }
  });
});
