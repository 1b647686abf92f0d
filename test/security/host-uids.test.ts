import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { DEFAULT_SANDBOX_UIDS, HostUidPool } from "@reviewbot/sandbox/host-uid-pool";
import { PYTHON_IMAGE } from "../support/attack-repo.js";
import { useEngine } from "../support/attack-suite.js";
import { ENGINES_UNDER_ATTACK } from "../support/attack-engines.js";
import { holdHelper, uidsOfTwoInFlight } from "../support/held-helpers.js";
import { inRange } from "../support/sandbox-uids.js";
import { BASE_IMAGE, sandboxSpec, shellSpec } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// An escape from one PR's helper must not land as the same host user as another PR's
// helper running at the same time. Seen from the host, not from inside.

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
      const result = await engine.opened.engine.run(sandboxSpec(worktree, ["python3", "-c", LEASE_ATTACK, name], { image: PYTHON_IMAGE }));
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
    const uids = await uidsOfTwoInFlight(engine.opened.label, [engine.opened.engine, engine.opened.engine], worktree);
    for (const uid of uids) expect(inRange(DEFAULT_SANDBOX_UIDS, uid), String(uid)).toBe(true);
  });
});

describe("a uid pool that runs out (negative control: fail closed, never share)", () => {
  it("refuses a second run in flight when the pool has one uid, and runs it once the first is done", async () => {
    const worktree = await reachableTempDir("host-uids-one");
    const cacheDir = await reachableTempDir("host-uids-cache");
    const uids = await HostUidPool.create(
      { first: DEFAULT_SANDBOX_UIDS.first + DEFAULT_SANDBOX_UIDS.count - 1, count: 1 },
      undefined,
      `reviewbot-test-one-${randomUUID()}`,
    );
    const engine = await BwrapEngine.create({ images: [BASE_IMAGE], cacheDir, uids });
    try {
      const first = await holdHelper("bwrap (one uid)", engine, worktree, `only-${randomUUID()}`);
      await expect(engine.run(shellSpec(worktree, "true"))).rejects.toMatchObject({
        code: "SANDBOX_UNAVAILABLE",
        message: expect.stringContaining("is held") as unknown,
      });
      await first.done;
      await expect(engine.run(shellSpec(worktree, "echo again"))).resolves.toMatchObject({ exitCode: 0 });
    } finally {
      await engine.close();
    }
  });
});
