import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { expectAppError, jobEntries, openCache } from "../support/clone-cache-harness.js";
import { startConnectionRecorder } from "../support/connection-recorder.js";
import { watchCommandLines } from "../support/process-watch.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();

describe("a remote that never answers", () => {
  it("fails GIT_TIMEOUT at the deadline and leaves no git process or job behind", async () => {
    const root = await tempDir("timeout");
    const silent = await startConnectionRecorder();
    try {
      const remote = `http://127.0.0.1:${silent.port}/o/r.git`;
      const cacheRoot = join(root, "cache");
      const cache = await openCache(cacheRoot, { allowedProtocols: ["http"], gitTimeoutMs: 1500 });

      const during = watchCommandLines();
      const error = await expectAppError(cache.checkout({ remote, head: { ref: "fork" }, base: { ref: "main" } }), "GIT_TIMEOUT");
      const seenDuring = (await during.stop()).filter((line) => line.includes(remote));
      await sleep(200);
      const after = watchCommandLines();
      await sleep(100);
      const survivors = (await after.stop()).filter((line) => line.includes(remote));

      expect(error.message).toContain("1500 ms");
      expect(silent.connections.length).toBeGreaterThan(0);
      expect(silent.connections[0]?.firstBytes).toMatch(/^GET \/o\/r\.git\/info\/refs/);
      // git fetch and git-remote-http were alive while it hung, and were all killed with their group.
      expect(seenDuring.length).toBeGreaterThan(0);
      expect(survivors).toEqual([]);
      expect(await jobEntries(cacheRoot)).toEqual([]);
    } finally {
      await silent.close();
    }
  });
});
