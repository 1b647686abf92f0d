import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli-runner.js";

// The first thing a newcomer types (it used to exit 2 with "Unknown option '--help'"): help and
// version exit 0 with useful text, and work whatever the environment holds; a mistake still exits 2
// with the usage.
const BROKEN_ENV = { REVIEWBOT_NOT_A_SETTING: "1" };

describe("reviewbot --help and --version", () => {
  it.each([["--help"], ["-h"], ["help"]])("%s prints every command and exits 0, even with an environment the config refuses", async (flag) => {
    const result = await runCli([flag], BROKEN_ENV);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe("");
    for (const command of ["review", "checkout", "doctor", "llm doctor", "submit", "worker-credential", "fleet"])
      expect(result.stdout).toContain(`  ${command}`);
  });

  it.each([
    [["review", "--help"], "--fail-level", "submit"],
    [["help", "fleet"], "--keep-running", "--fail-level"],
    [["llm", "doctor", "--help"], "REVIEWBOT_LLM_", "--repo-dir"],
    [["worker-credential", "-h"], "--registry", "--keep-running"],
  ])("%j prints that command's help alone", async (args, present, absent) => {
    const result = await runCli(args, {});
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(present);
    expect(result.stdout).not.toContain(absent);
  });

  it("--version prints the CLI's version", async () => {
    const { version } = JSON.parse(await readFile(new URL("../../apps/cli/package.json", import.meta.url), "utf8")) as { version: string };
    const result = await runCli(["--version"], {});
    expect(result).toEqual({ status: 0, stdout: `reviewbot ${version}\n`, stderr: "" });
  });

  it.each([
    [["nope"], /unknown command "nope"/],
    [["nope", "--help"], /unknown command "nope"/],
    [["--nope"], /Unknown option '--nope'/],
    [[], /no command given/],
  ])("%j exits 2 with the reason and the usage on stderr", async (args, reason) => {
    const result = await runCli(args, {});
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toContain("usage: reviewbot <command> [options]");
  });
});
