import { spawnSync } from "node:child_process";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../support/temp-dirs.js";

const RULES_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "infra", "prometheus");

function promtool(cwd: string, ...args: string[]): { status: number | null; output: string } {
  const run = spawnSync("promtool", args, { cwd, encoding: "utf8", timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("infra/prometheus (Debian's promtool)", () => {
  const tempDir = useTempDirs();

  it("the rules and the Compose scrape configuration are valid", () => {
    const rules = promtool(RULES_DIR, "check", "rules", "alerts.yml");
    expect(rules.output).toContain("SUCCESS: 11 rules found");
    expect(rules.status).toBe(0);
    const config = promtool(RULES_DIR, "check", "config", "prometheus.yml");
    expect(config.status, config.output).toBe(0);
  });

  it("every alert fires on its series and stays quiet on its near miss (promtool test rules)", () => {
    const run = promtool(RULES_DIR, "test", "rules", "alerts.test.yml");
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain("SUCCESS");
  });

  it("negative control: the unit tests fail when a rule's threshold is changed", async () => {
    const dir = await tempDir("promtool");
    await copyFile(join(RULES_DIR, "alerts.test.yml"), join(dir, "alerts.test.yml"));
    const rules = await readFile(join(RULES_DIR, "alerts.yml"), "utf8");
    const weakened = rules.replace("reviewbot_sandbox_engine_ready == 0", "reviewbot_sandbox_engine_ready < 0");
    expect(weakened).not.toBe(rules);
    await writeFile(join(dir, "alerts.yml"), weakened);
    const run = promtool(dir, "test", "rules", "alerts.test.yml");
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("alertname: ReviewbotSandboxEngineNotReady");
  });
});
