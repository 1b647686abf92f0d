import { describe, expect, it } from "vitest";
import { SANDBOX_BASE_ENV } from "@reviewbot/policy/sandbox-env";
import { ISOLATION_ENGINES } from "../support/attack-engines.js";
import { useAttackSuite, useEngine } from "../support/attack-suite.js";
import { CANARY_ENV_NAME } from "../support/canaries.js";

const ATTACKS = {
  environment: [
    'echo "== env"; env',
    "echo \"== self\"; tr '\\0' '\\n' < /proc/self/environ",
    "echo \"== init\"; tr '\\0' '\\n' < /proc/1/environ",
    "echo \"== cmdline\"; tr '\\0' ' ' < /proc/1/cmdline; echo",
  ].join("\n"),
};

// Names an engine or the shell may add on its own, none of them the worker's (Podman sets TERM=xterm).
const ENGINE_ADDED = ["HOSTNAME", "TERM", "container", "PWD", "SHLVL", "OLDPWD", "_"];

const suite = useAttackSuite({ attacks: ATTACKS });

/** The `NAME=value` lines of one `== section` of the case's output. */
function section(out: string, name: string): string[] {
  const after = out.split(`== ${name}\n`)[1] ?? "";
  return (
    after
      .split("\n== ")[0]
      ?.split("\n")
      .filter((line) => line !== "") ?? []
  );
}

describe("negative control: the same case on the host", () => {
  it("shows the worker's environment, canary included", async () => {
    const { stdout } = await suite.runOnHost("environment");
    expect(stdout).toContain(`${CANARY_ENV_NAME}=${suite.canaries.values[0] ?? ""}`);
    expect(stdout).toContain("HOME=/root");
  });
});

describe.each(ISOLATION_ENGINES)("environment attacks on $name", (underAttack) => {
  const engine = useEngine(underAttack);

  it("env, /proc/self/environ, /proc/1/environ and /proc/1/cmdline hold only the sandbox's environment", async () => {
    const run = await suite.attack(engine.opened, "environment");
    expect(run.exitCode, run.err).toBe(0);
    const hostPath = (process.env.PATH ?? "").split(":").filter((dir) => !SANDBOX_BASE_ENV.PATH?.split(":").includes(dir));
    for (const name of ["env", "self", "init", "cmdline"]) {
      const lines = section(run.out, name);
      expect(lines.join("\n"), name).not.toContain("HOME=/root");
      for (const dir of hostPath) expect(lines.join("\n"), `${name} shows the worker's PATH entry ${dir}`).not.toContain(dir);
      if (name === "cmdline") continue;
      const names = lines.map((line) => line.split("=", 1)[0] ?? "");
      const foreign = names.filter(
        (variable) => !Object.hasOwn(SANDBOX_BASE_ENV, variable) && variable !== "REVIEWBOT_CASE" && !ENGINE_ADDED.includes(variable),
      );
      expect(foreign, `${name}: variables the sandbox was not given`).toEqual([]);
    }
    expect(section(run.out, "env")).toEqual(expect.arrayContaining(Object.entries(SANDBOX_BASE_ENV).map(([name, value]) => `${name}=${value}`)));
    expect(section(run.out, "env")).toContain("REVIEWBOT_CASE=environment");
  });
});
