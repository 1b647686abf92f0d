import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { startProcess, startRedis } from "./fleet-process.js";
import { percentile } from "./percentile.js";

// What WAIT (issue 25, part 3a) adds to accepting a delivery: the ledger write alone against the
// write followed by `WAIT 1 100` with one local replica, one at a time and 32 at once on one
// connection (the api's shape: every delivery shares its fail-fast connection).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "2000");
const port = 20_000 + Math.floor(Math.random() * 20_000);
const dir = mkdtempSync(join(tmpdir(), "bench-wait-"));
const primary = startRedis(dir, port);
const replica = startProcess(
  [
    "redis-server",
    "--port",
    String(port + 1),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--dir",
    mkdtempSync(join(dir, "replica-")),
    "--replicaof",
    "127.0.0.1",
    String(port),
  ],
  {},
);
try {
  await primary.waitFor(/Ready to accept connections/);
  await replica.waitFor(/MASTER <-> REPLICA sync: Finished with success/);
  const redis = new Redis({ port, host: "127.0.0.1" });
  for (const replicas of [0, 1]) {
    for (const parallel of [1, 32]) {
      const timings: number[] = [];
      const accept = async (n: number): Promise<void> => {
        const started = performance.now();
        await redis.set(`bench:delivery:${String(replicas)}:${String(n)}`, "job", "EX", 60, "NX");
        if (replicas > 0 && (await redis.wait(replicas, 100)) < replicas) throw new Error("replica did not acknowledge");
        timings.push(performance.now() - started);
      };
      const started = performance.now();
      for (let n = 0; n < ROUNDS; n += parallel) await Promise.all(Array.from({ length: parallel }, (_, i) => accept(n + i)));
      const seconds = (performance.now() - started) / 1000;
      const sorted = timings.sort((a, b) => a - b);
      const line = {
        wait: replicas > 0 ? "WAIT 1 100" : "none",
        parallel,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        perSecond: timings.length / seconds,
      };
      process.stdout.write(`${JSON.stringify(line, (_key, value: unknown) => (typeof value === "number" ? Math.round(value * 1000) / 1000 : value))}\n`);
    }
  }
  redis.disconnect();
} finally {
  await replica.stop();
  await primary.stop();
  rmSync(dir, { recursive: true, force: true });
}
