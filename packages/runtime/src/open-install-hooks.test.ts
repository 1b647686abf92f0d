import { describe, expect, it } from "vitest";
import { createLogger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";
import { openInstallHooks } from "./open-install-hooks.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "info", scrubber: new SecretScrubber(), destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { logger, lines };
}

describe("openInstallHooks", () => {
  // The none engine accepts no mounts: it has no `installSupport`, so nothing may start for it.
  it.each([
    ["off", []],
    ["registry", [["install hooks need the container engine; they will not run", "none"]]],
  ] as const)("with installHooks %s on an engine without installSupport starts nothing", async (installHooks, logged) => {
    const { logger, lines } = capture();
    const opened = await openInstallHooks({ operator: parseOperatorPolicy({ installHooks }), engine: new NoneEngine(), caBundle: "/nonexistent", logger });
    expect(opened.runtime).toBeUndefined();
    await opened.close();
    expect(lines.map((line) => [line.msg, line.engine])).toEqual(logged);
  });
});
