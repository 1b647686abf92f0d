import { describe, expect, it } from "vitest";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import type { EngineHealth } from "@reviewbot/sandbox/sandbox-spec";
import { createSandboxHealth } from "./sandbox-health.js";

/** An engine whose health answers are scripted; counts how often it is asked. */
function scriptedEngine(answer: (signal: AbortSignal) => Promise<EngineHealth>) {
  const engine = {
    name: "podman" as const,
    calls: 0,
    health(signal: AbortSignal) {
      engine.calls += 1;
      return answer(signal);
    },
  };
  return engine;
}

function harness(answer: (signal: AbortSignal) => Promise<EngineHealth>, timeoutMs = 1000) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "info",
    scrubber: new SecretScrubber(),
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  let clock = 0;
  const engine = scriptedEngine(answer);
  const health = createSandboxHealth(engine, { timeoutMs, maxAgeMs: 2000, logger, now: () => clock });
  return { engine, health, lines, advance: (ms: number) => (clock += ms) };
}

const DOWN_REASON = "podman system service exited (SIGKILL); starting it again";
const down: EngineHealth = { healthy: false, reason: DOWN_REASON };
const later = (ms: number, health: EngineHealth): Promise<EngineHealth> =>
  new Promise((resolve) => {
    setTimeout(() => {
      resolve(health);
    }, ms);
  });

describe("createSandboxHealth", () => {
  it("reuses a result younger than maxAgeMs and asks again after", async () => {
    const { engine, health, advance } = harness(() => Promise.resolve({ healthy: true }));
    expect(await health.check()).toEqual({ healthy: true });
    advance(1999);
    await health.check();
    expect(engine.calls).toBe(1);
    advance(1);
    await health.check();
    expect(engine.calls).toBe(2);
  });

  it("asks the engine once for concurrent checks", async () => {
    const { engine, health } = harness(() => later(20, { healthy: true }));
    const answers = await Promise.all([health.check(), health.check(), health.check()]);
    expect(answers).toEqual([{ healthy: true }, { healthy: true }, { healthy: true }]);
    expect(engine.calls).toBe(1);
  });

  it.each([
    ["an engine that never answers", () => new Promise<EngineHealth>(() => undefined), /did not answer its health check within 50 ms/],
    ["an engine whose check rejects", () => Promise.reject(new Error("socket hang up")), /^socket hang up$/],
    ["an engine that reports itself down", () => Promise.resolve(down), /^podman system service exited \(SIGKILL\)/],
  ])("reports %s as unhealthy with a reason", async (_name, answer, reason) => {
    const { health } = harness(answer, 50);
    const result = await health.check();
    expect(result.healthy).toBe(false);
    expect(result.healthy ? "" : result.reason).toMatch(reason);
  });

  it("aborts the signal it handed the engine at the timeout", async () => {
    let seen: AbortSignal | undefined;
    const { health } = harness((signal) => {
      seen = signal;
      return new Promise(() => undefined);
    }, 30);
    await health.check();
    expect(seen?.aborted).toBe(true);
  });

  it("logs the turn to unhealthy and the recovery once each", async () => {
    const script: EngineHealth[] = [{ healthy: true }, down, down, { healthy: true }, { healthy: true }];
    const { health, lines, advance } = harness(() => Promise.resolve(script.shift() ?? { healthy: true }));
    for (let step = 0; step < 5; step++) {
      await health.check();
      advance(2000);
    }
    expect(lines.map((line) => [line.msg, line.reason])).toEqual([
      ["sandbox engine unhealthy", DOWN_REASON],
      ["sandbox engine healthy again", undefined],
    ]);
  });
});
