import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect } from "vitest";
import { buildSandboxEnv } from "@reviewbot/policy/sandbox-env";
import type { SandboxLimits, SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import { prepareAttackRepo, type AttackRepo, type AttackRepoOptions } from "./attack-repo.js";
import type { EngineUnderAttack, OpenedEngine } from "./attack-engines.js";
import { plantCanaries, type Canaries } from "./canaries.js";
import { BASE_IMAGE, TEST_LIMITS } from "./sandbox-specs.js";

const execFileAsync = promisify(execFile);

export interface AttackOptions {
  /** The base helper that runs the case; `attack` (base image) unless told otherwise. */
  readonly helper?: string;
  readonly limits?: Partial<SandboxLimits>;
  /** Further `REVIEWBOT_*` variables for the case. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface AttackRun extends SandboxResult {
  readonly out: string;
  readonly err: string;
  /** `key=value` lines the case printed on stdout (the last value of a key wins). */
  readonly facts: ReadonlyMap<string, string>;
}

export interface AttackSuite {
  readonly repo: AttackRepo;
  readonly canaries: Canaries;
  /** Runs `attacks/<name>.sh` of the fork through the base helper, as the worker would. */
  attack(opened: OpenedEngine, name: string, options?: AttackOptions): Promise<AttackRun>;
  /** Negative control: the same case as a plain host process with the worker's environment. */
  runOnHost(name: string): Promise<{ stdout: string; stderr: string }>;
}

/**
 * The file-level fixture of an attack suite: canaries planted first, one checkout of the attacking
 * PR for every engine and case, and at the end a sweep of every output the file collected.
 */
export function useAttackSuite(options: AttackRepoOptions): AttackSuite {
  const outputs: { where: string; bytes: Buffer }[] = [];
  const state = {} as { repo: AttackRepo; canaries: Canaries };
  const suite: AttackSuite = {
    get repo() {
      return state.repo;
    },
    get canaries() {
      return state.canaries;
    },
    async attack(opened: OpenedEngine, name: string, attackOptions: AttackOptions = {}): Promise<AttackRun> {
      const helper = suite.repo.helper(attackOptions.helper ?? "attack");
      const result = await opened.engine.run({
        argv: helper.command,
        image: helper.image.reference,
        worktree: suite.repo.checkout.dir,
        cwd: helper.cwd,
        env: buildSandboxEnv({ REVIEWBOT_CASE: name, ...attackOptions.env }),
        limits: { ...TEST_LIMITS, ...attackOptions.limits },
        labels: { jobId: `attack-${randomUUID()}`, helper: helper.name, repo: "attacker/fork", pr: 1 },
      });
      const where = `${opened.label}/${name}`;
      outputs.push({ where, bytes: Buffer.concat([result.stdout, result.stderr]) });
      suite.canaries.assertAbsent(result.stdout, `${where} stdout`);
      suite.canaries.assertAbsent(result.stderr, `${where} stderr`);
      const out = result.stdout.toString("utf8");
      return { ...result, out, err: result.stderr.toString("utf8"), facts: parseFacts(out) };
    },
    async runOnHost(name: string) {
      const script = `${suite.repo.checkout.dir}/attacks/${name}.sh`;
      const run = execFileAsync("sh", [script], { cwd: suite.repo.checkout.dir, env: process.env, timeout: 10_000 });
      return run.catch((err: unknown) => err as { stdout: string; stderr: string });
    },
  };

  beforeAll(async () => {
    state.canaries = await plantCanaries();
    state.repo = await prepareAttackRepo(options);
  });
  afterAll(async () => {
    try {
      for (const { where, bytes } of outputs) suite.canaries.assertAbsent(bytes, `${where} (final sweep)`);
    } finally {
      await suite.repo.dispose();
      await suite.canaries.remove();
    }
  });
  return suite;
}

/** Opens `engine` for `images` in the enclosing `describe` and closes it afterwards. */
export function useEngine(engine: EngineUnderAttack, images: readonly string[] = [BASE_IMAGE]): { opened: OpenedEngine } {
  const holder = {} as { opened: OpenedEngine };
  beforeAll(async () => {
    holder.opened = await engine.open(images);
  });
  afterAll(async () => {
    await holder.opened.close();
  });
  return holder;
}

/** Asserts the facts a case printed about its own limits; a missing one fails loudly by name. */
export function expectFacts(run: AttackRun, expected: Readonly<Record<string, string>>): void {
  const seen = Object.fromEntries(Object.keys(expected).map((key) => [key, run.facts.get(key) ?? "(not printed)"]));
  expect(seen, `facts printed from inside; stderr: ${run.err.slice(0, 500)}`).toEqual(expected);
}

function parseFacts(stdout: string): Map<string, string> {
  const facts = new Map<string, string>();
  for (const line of stdout.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0 && /^[A-Za-z0-9_.-]+$/.test(line.slice(0, at))) facts.set(line.slice(0, at), line.slice(at + 1));
  }
  return facts;
}
