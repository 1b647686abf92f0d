import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import { SecretScrubber } from "./scrubber.js";
import { createCloser } from "./create-closer.js";

function capture(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "info",
    scrubber: new SecretScrubber(),
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

describe("createCloser", () => {
  it("runs every step once, in order, past failures and hangs", async () => {
    const { logger, lines } = capture();
    const ran: string[] = [];
    const close = createCloser(
      [
        ["a", () => Promise.resolve(ran.push("a"))],
        ["b", () => Promise.reject(new Error("boom"))],
        ["c", () => new Promise(() => undefined)],
        ["d", () => Promise.resolve(ran.push("d"))],
      ],
      logger,
      50,
    );
    expect(await Promise.all([close(), close()])).toEqual([false, false]);
    await close();
    expect(ran).toEqual(["a", "d"]);
    expect(lines.map((line) => [line.msg, line.step])).toEqual([
      ["shutdown step failed", "b"],
      ["shutdown step timed out", "c"],
    ]);
  });

  it("counts a nested close that was not clean without logging it again", async () => {
    const { logger, lines } = capture();
    const inner = createCloser([["engine", () => Promise.reject(new Error("boom"))]], logger);
    const ran: string[] = [];
    const outer = createCloser(
      [
        ["runtime", inner],
        ["redis", () => Promise.resolve(ran.push("redis"))],
      ],
      logger,
    );
    expect(await outer()).toBe(false);
    expect(ran).toEqual(["redis"]);
    expect(lines.map((line) => [line.msg, line.step])).toEqual([["shutdown step failed", "engine"]]);
  });

  it("resolves true when every step succeeded", async () => {
    const { logger, lines } = capture();
    expect(await createCloser([["a", () => Promise.resolve()]], logger)()).toBe(true);
    expect(lines).toEqual([]);
  });
});
