import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "@reviewbot/policy/repo-config";
import { ATTACK_OPERATOR, BASE_REVIEW_TOOLS, BASE_RUN_SH } from "../support/attack-repo.js";
import { ISOLATION_ENGINES } from "../support/attack-engines.js";
import { useAttackSuite, useEngine } from "../support/attack-suite.js";

const FORK_MARKER = `fork-ran-${randomUUID()}`;

/** The fork's own `.ai/review-tools.json`: the base helpers, a helper running its script, one hiding it behind sh. */
const FORK_REVIEW_TOOLS = {
  helpers: [
    ...BASE_REVIEW_TOOLS.helpers,
    { name: "fork-direct", description: "the fork's own script", command: ["./attacks/pwn.sh"] },
    { name: "fork-sh", description: "the fork's script behind a bare program", command: ["sh", "attacks/pwn.sh"] },
  ],
};

const suite = useAttackSuite({
  attacks: { "trust-probe": 'echo "case=ran"', pwn: `echo ${FORK_MARKER}` },
  editFork: (tree) => {
    tree.write(".ai/review-tools.json", `${JSON.stringify(FORK_REVIEW_TOOLS)}\n`);
    tree.write(".ai/run.sh", `#!/bin/sh\necho ${FORK_MARKER}\n`, { executable: true });
    tree.write(".ai/fork-only.sh", `#!/bin/sh\necho ${FORK_MARKER}\n`, { executable: true });
  },
});

describe("trust: the fork's .ai/ is never the config or the code that runs", () => {
  it("negative control: the fork's branch does carry the hostile .ai/", () => {
    expect(suite.repo.upstream.git(["show", "fork:.ai/run.sh"])).toContain(FORK_MARKER);
    expect(suite.repo.upstream.git(["show", "fork:.ai/review-tools.json"])).toContain("fork-direct");
  });

  it("the checkout carries the base .ai/ byte for byte, without the fork's additions", async () => {
    const dir = suite.repo.checkout.dir;
    expect(await readFile(join(dir, ".ai/run.sh"), "utf8")).toBe(BASE_RUN_SH);
    expect(JSON.parse(await readFile(join(dir, ".ai/review-tools.json"), "utf8"))).toEqual(BASE_REVIEW_TOOLS);
    expect(existsSync(join(dir, ".ai/fork-only.sh"))).toBe(false);
  });

  it("the parsed config has only the base helpers", () => {
    expect(suite.repo.config.errors).toEqual([]);
    expect(suite.repo.config.helpers.map((helper) => helper.name)).toEqual(["attack", "attack-python"]);
    // docs/architecture.md, layer 2 (helpers run only trusted code): the base's top-level .ai/ by
    // absolute path, whatever the cwd (trust-cwd.test.ts).
    expect(suite.repo.helper("attack").command).toEqual(["sh", "/work/.ai/run.sh"]);
  });

  it("even the fork's config would not run its script as command[0]", () => {
    const forkConfig = parseRepoConfig(suite.repo.upstream.git(["show", "fork:.ai/review-tools.json"]), ATTACK_OPERATOR);
    expect(forkConfig.helpers.map((helper) => helper.name)).not.toContain("fork-direct");
    expect(forkConfig.errors).toContainEqual({
      path: "helpers[2].command[0]",
      message: expect.stringMatching(/^helpers\[2\]\.command\[0\]: .*\.\/attacks\/pwn\.sh/) as unknown,
    });
  });
});

describe.each(ISOLATION_ENGINES)("trust on $name", (underAttack) => {
  const engine = useEngine(underAttack);

  it("runs the base .ai/run.sh: the fork's .ai/run.sh never executes", async () => {
    const run = await suite.attack(engine.opened, "trust-probe");
    expect(run.exitCode, run.err).toBe(0);
    expect(run.out).toBe("case=ran\n");
    expect(run.out + run.err).not.toContain(FORK_MARKER);
  });
});
