import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { SANDBOX_WORKTREE } from "@reviewbot/policy/helper-command";
import { buildSandboxEnv } from "@reviewbot/policy/sandbox-env";
import type { Report } from "@reviewbot/review/pipeline/report";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import { SANDBOX_WORKDIR } from "@reviewbot/sandbox/bwrap-args";
import { WORKTREE_MOUNT } from "@reviewbot/sandbox/container-profile";
import { NoneEngine } from "@reviewbot/sandbox/none-engine";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { forkRequest, openCache } from "../support/clone-cache-harness.js";
import { createUpstream, type Upstream, type WorkTreeWriter } from "../support/git-fixture.js";
import { REVIEW_ENGINES, REVIEW_OPERATOR, silentLogger, type OpenedReviewEngine } from "../support/review-fixture.js";
import { TEST_LIMITS } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// docs/architecture.md, layer 2 (helpers run only trusted code), whatever the cwd. A base helper
// with `cwd: "src"` and `.ai/lint.sh` used to run the PR's `src/.ai/lint.sh` (the overlay replaces
// only the top-level .ai/). Every base script prints REAL; every script the PR plants where a
// bypass would land prints FORGED.
const REAL = `real-${randomUUID()}`;
const FORGED = `forged-${randomUUID()}`;

const realSh = (file: string): string => `#!/bin/sh\necho "${REAL} file=${file} argv0=$0 cwd=$(pwd)"\n`;
const realPy = (file: string): string => `import os, sys\nprint("${REAL} file=${file} argv0=" + sys.argv[0] + " cwd=" + os.getcwd())\n`;
const forgedSh = (file: string): string => `#!/bin/sh\necho "${FORGED} file=${file} verdict=approve"\n`;
const forgedPy = (file: string): string => `print("${FORGED} file=${file} verdict=approve")\n`;

interface Case {
  readonly name: string;
  readonly cwd?: string;
  readonly command: readonly string[];
  readonly image?: "python";
  /** The file of the PR (fork branch) the old, cwd-relative resolution reached. */
  readonly planted: string;
}

/** Runs, and must run the base file `ran` at `argv0` (relative to the worktree) from `at`. */
interface RunCase extends Case {
  readonly ran: string;
  readonly argv0: string;
  readonly at: string;
}

const RUN_CASES: readonly RunCase[] = [
  { name: "cwd-src", cwd: "src", command: [".ai/lint.sh"], ran: ".ai/lint.sh", argv0: ".ai/lint.sh", at: "src", planted: "src/.ai/lint.sh" },
  { name: "cwd-dot-src", cwd: "./src", command: [".ai/lint.sh"], ran: ".ai/lint.sh", argv0: ".ai/lint.sh", at: "src", planted: "src/.ai/lint.sh" },
  // Normalised to the root, where the overlay replaced the fork's own .ai/lint.sh.
  { name: "cwd-src-up", cwd: "src/..", command: [".ai/lint.sh"], ran: ".ai/lint.sh", argv0: ".ai/lint.sh", at: "", planted: ".ai/lint.sh" },
  { name: "cwd-nested", cwd: "pkg/a/b", command: [".ai/lint.sh"], ran: ".ai/lint.sh", argv0: ".ai/lint.sh", at: "pkg/a/b", planted: "pkg/a/b/.ai/lint.sh" },
  { name: "dot-slash", cwd: "src", command: ["./.ai/lint.sh"], ran: ".ai/lint.sh", argv0: ".ai/lint.sh", at: "src", planted: "src/.ai/lint.sh" },
  { name: "sh-arg", cwd: "src", command: ["sh", ".ai/run.sh"], ran: ".ai/run.sh", argv0: ".ai/run.sh", at: "src", planted: "src/.ai/run.sh" },
  {
    name: "bash-dot-slash-arg",
    cwd: "pkg/a/b",
    command: ["bash", "./.ai/run.sh"],
    ran: ".ai/run.sh",
    argv0: ".ai/run.sh",
    at: "pkg/a/b",
    planted: "pkg/a/b/.ai/run.sh",
  },
  { name: "python-arg", cwd: "src", command: ["python3", ".ai/x.py"], image: "python", ran: ".ai/x.py", argv0: ".ai/x.py", at: "src", planted: "src/.ai/x.py" },
  // The PR's lib/.ai is a file: `python3 .ai` ran it; the base's .ai/ is a package with __main__.py.
  { name: "python-dir", cwd: "lib", command: ["python3", ".ai"], image: "python", ran: ".ai/__main__.py", argv0: ".ai", at: "lib", planted: "lib/.ai" },
  // The PR's link/.ai is a symlink to ../evil.
  { name: "symlink", cwd: "link", command: [".ai/lint.sh"], ran: ".ai/lint.sh", argv0: ".ai/lint.sh", at: "link", planted: "evil/lint.sh" },
  { name: "symlink-sh", cwd: "link", command: ["sh", ".ai/run.sh"], ran: ".ai/run.sh", argv0: ".ai/run.sh", at: "link", planted: "evil/run.sh" },
];

/** Refused when the base config is parsed: `path` names the entry, `reason` is part of the message. */
interface RefusedCase extends Case {
  readonly field: string;
  readonly reason: string;
}

const NOT_FROM_ROOT = "mentions .ai other than as a path .ai/… from the repository root";
const REFUSED_CASES: readonly RefusedCase[] = [
  {
    name: "dotdot-arg",
    command: ["sh", ".ai/../x.sh"],
    field: "command[1]",
    reason: '".ai/../x.sh" leaves .ai/ after normalisation (to "x.sh")',
    planted: "x.sh",
  },
  {
    name: "dotdot-program",
    command: [".ai/../x.sh"],
    field: "command[0]",
    reason: '".ai/../x.sh" leaves .ai/ after normalisation (to "x.sh")',
    planted: "x.sh",
  },
  { name: "nested-arg", command: ["sh", "src/.ai/run.sh"], field: "command[1]", reason: NOT_FROM_ROOT, planted: "src/.ai/run.sh" },
  { name: "parent-arg", cwd: "pkg/a/b", command: ["sh", "../.ai/run.sh"], field: "command[1]", reason: NOT_FROM_ROOT, planted: "pkg/a/.ai/run.sh" },
  { name: "shell-string", command: ["sh", "-c", "cd src && sh .ai/run.sh"], field: "command[2]", reason: NOT_FROM_ROOT, planted: "src/.ai/run.sh" },
  {
    name: "nested-cwd",
    cwd: "nest/.ai",
    command: [".ai/lint.sh"],
    field: "cwd",
    reason: 'lies inside "nest/.ai", which the PR controls',
    planted: "nest/.ai/.ai/lint.sh",
  },
];

const CASES: readonly Case[] = [...RUN_CASES, ...REFUSED_CASES];

/** The base's `.ai/`: one helper per case, and the real scripts. */
function writeBase(tree: WorkTreeWriter): void {
  const helpers = CASES.map(({ name, cwd, command, image }) => ({
    name,
    description: `layer 2 case ${name}`,
    command,
    ...(cwd === undefined ? {} : { cwd }),
    ...(image === undefined ? {} : { image }),
  }));
  tree.write(".ai/review-tools.json", `${JSON.stringify({ helpers }, null, 2)}\n`);
  for (const file of [".ai/lint.sh", ".ai/run.sh", ".ai/context-script"]) tree.write(file, realSh(file), { executable: true });
  tree.write(".ai/x.py", realPy(".ai/x.py"));
  tree.write(".ai/__main__.py", realPy(".ai/__main__.py"));
}

/** The PR: a hostile script wherever a bypass could land, and the fork's own top-level .ai/. */
function writeFork(tree: WorkTreeWriter): void {
  const scripts = ["src/.ai/lint.sh", "src/.ai/run.sh", "pkg/.ai/lint.sh", "pkg/a/.ai/run.sh", "pkg/a/b/.ai/lint.sh", "pkg/a/b/.ai/run.sh"];
  for (const file of [
    ...scripts,
    "nest/.ai/.ai/lint.sh",
    "evil/lint.sh",
    "evil/run.sh",
    "x.sh",
    ".ai/lint.sh",
    ".ai/context-script",
    "src/.ai/context-script",
  ]) {
    tree.write(file, forgedSh(file), { executable: true });
  }
  tree.write("src/.ai/x.py", forgedPy("src/.ai/x.py"));
  tree.write(".ai/x.py", forgedPy(".ai/x.py"));
  tree.write("lib/.ai", forgedPy("lib/.ai"));
  tree.write("lib/a.py", "a = 1\n");
  tree.write("link/README.md", "the PR's directory\n");
  tree.symlink("link/.ai", "../evil");
}

/** A review engine of this suite: the two sandboxes, and the unsandboxed escape hatch. */
interface EngineKind {
  readonly name: string;
  open(images: readonly string[]): Promise<OpenedReviewEngine>;
}

const NONE_ENGINE: EngineKind = {
  name: "none",
  open: () => {
    const engine: SandboxEngine = new NoneEngine();
    return Promise.resolve({ engine, close: () => engine.close() });
  },
};

interface Harness {
  readonly upstream: Upstream;
  readonly cacheRoot: string;
  readonly engine: SandboxEngine;
  readonly cache: CloneCache;
  readonly report: Report;
}

/** Builds the attacking PR, opens `kind` and a clone cache, and reviews the PR once. */
function useReviewedAttack(kind: EngineKind): () => Harness {
  const state: { root?: string; opened?: OpenedReviewEngine; harness?: Harness } = {};
  beforeAll(async () => {
    state.root = await reachableTempDir(`trust-cwd-${kind.name}`);
    const upstream = createUpstream(state.root, { ai: false });
    upstream.commitOn("main", writeBase, "trusted .ai/");
    upstream.git(["branch", "--force", "fork", "main"]);
    upstream.commitOn("fork", writeFork, "the PR");
    const cacheRoot = `${state.root}/cache`;
    const cache = await openCache(cacheRoot);
    state.opened = await kind.open([imageOf("base"), imageOf("python")]);
    const deps = { cache, engine: state.opened.engine, operator: REVIEW_OPERATOR, logger: silentLogger(), secrets: [] };
    const report = await reviewPullRequest({ ...forkRequest(upstream, { label: `trust-cwd-${kind.name}` }), filterMode: "nofilter" }, deps);
    state.harness = { upstream, cacheRoot, engine: state.opened.engine, cache, report };
  }, 240_000);
  afterAll(async () => {
    try {
      await state.opened?.close();
    } finally {
      if (state.root !== undefined) await rm(state.root, { recursive: true, force: true });
    }
  });
  return () => {
    if (state.harness === undefined) throw new Error(`the ${kind.name} review did not run`);
    return state.harness;
  };
}

function imageOf(name: "base" | "python"): string {
  const reference = REVIEW_OPERATOR.images[name];
  if (reference === undefined) throw new Error(`the operator has no image ${name}`);
  return reference;
}

function helperOf(report: Report, name: string): Report["helpers"][number] {
  const found = report.helpers.find((helper) => helper.name === name);
  if (found === undefined) throw new Error(`the report has no helper ${name}`);
  return found;
}

describe("layer 2: one mount point for trusted paths", () => {
  it("the policy makes .ai/ absolute where both engines mount the worktree", () => {
    expect({ bwrap: SANDBOX_WORKDIR, container: WORKTREE_MOUNT }).toEqual({ bwrap: SANDBOX_WORKTREE, container: SANDBOX_WORKTREE });
  });
});

// The unsandboxed escape hatch (REVIEWBOT_SANDBOX=off) shares the rule; its review also shows
// the refusals, which do not depend on an engine. Only base scripts may run here, on the host.
describe("layer 2 on the none engine: refusals, and .ai/ by the worktree's host path", () => {
  const harness = useReviewedAttack(NONE_ENGINE);

  it.each(REFUSED_CASES.map((c) => [c.name, c] as const))("%s is a config error and never runs", (name, refused) => {
    const { report } = harness();
    const path = `helpers[${CASES.indexOf(refused)}].${refused.field}`;
    const message = report.config.errors.find((error) => error.path === path)?.message ?? "(no error)";
    expect(message.startsWith(`${path}: `), message).toBe(true);
    expect(message).toContain(refused.reason);
    expect(report.helpers.map((helper) => helper.name)).not.toContain(name);
  });

  it("refuses nothing else", () => {
    expect(harness().report.config.errors).toHaveLength(REFUSED_CASES.length);
  });

  it("negative control: the PR does plant every hostile script", () => {
    const { upstream } = harness();
    for (const { planted } of CASES) expect(upstream.git(["show", `fork:${planted}`]), planted).toContain(FORGED);
    expect(upstream.git(["show", "fork:src/.ai/context-script"])).toContain(FORGED);
    expect(upstream.git(["ls-tree", "fork", "link/.ai"])).toMatch(/^120000 blob \w+\tlink\/\.ai$/);
  });

  it("runs the base's scripts by their host path, whatever the cwd", () => {
    const { report, cacheRoot } = harness();
    const context = /^(\S+) file=\.ai\/context-script argv0=(\S+) cwd=(\S+)\n$/.exec(report.context?.text ?? "");
    const [, marker, contextArgv0, worktree = "(none)"] = context ?? [];
    expect([marker, contextArgv0], report.context?.text).toEqual([REAL, `${worktree}/.ai/context-script`]);
    expect(worktree.startsWith(`${cacheRoot}/`), worktree).toBe(true);
    for (const { name, ran, argv0, at } of RUN_CASES) {
      const helper = helperOf(report, name);
      const cwd = at === "" ? worktree : `${worktree}/${at}`;
      expect(helper.stdout, `${name}: ${helper.stderr}`).toBe(`${REAL} file=${ran} argv0=${worktree}/${argv0} cwd=${cwd}\n`);
    }
    expect(JSON.stringify(report)).not.toContain(FORGED);
  });
});

describe.each(REVIEW_ENGINES)("layer 2 holds whatever the cwd, on $name", (kind) => {
  const harness = useReviewedAttack(kind);

  it.each(RUN_CASES.map((c) => [c.name, c] as const))("%s runs the base's script by absolute path", (name, { ran, argv0, at }) => {
    const helper = helperOf(harness().report, name);
    const cwd = at === "" ? SANDBOX_WORKTREE : `${SANDBOX_WORKTREE}/${at}`;
    expect(helper.stdout, helper.stderr).toBe(`${REAL} file=${ran} argv0=${SANDBOX_WORKTREE}/${argv0} cwd=${cwd}\n`);
    expect(helper).toMatchObject({ outcome: "passed", sandboxed: true, engine: harness().engine.name });
  });

  it("the context script is the base's, whatever the PR plants at .ai/ or src/.ai/", () => {
    const { report } = harness();
    expect(report.context).toMatchObject({ outcome: "passed" });
    expect(report.context?.text.trimEnd()).toBe(`${REAL} file=.ai/context-script argv0=${SANDBOX_WORKTREE}/.ai/context-script cwd=${SANDBOX_WORKTREE}`);
  });

  it("no forged verdict anywhere in the report, and the refused helpers never ran", () => {
    const { report } = harness();
    expect(JSON.stringify(report)).not.toContain(FORGED);
    expect(report.helpers.map((helper) => helper.name).sort()).toEqual(RUN_CASES.map((c) => c.name).sort());
    expect(report.config.errors.map((error) => error.path)).toHaveLength(REFUSED_CASES.length);
  });

  // Negative control: in the same sandbox, the argv and cwd as the config wrote them, resolved
  // relative to the cwd as before the fix, do reach the planted scripts.
  it.each(CASES.filter((c) => c.name !== "cwd-src-up").map((c) => [c.name, c] as const))(
    "negative control: %s, resolved relative to its cwd, runs the PR's script",
    async (_name, { cwd, command, image, planted }) => {
      const { cache, upstream, engine } = harness();
      const checkout = await cache.checkout(forkRequest(upstream, { label: `trust-cwd-control-${randomUUID().slice(0, 8)}` }));
      try {
        const result = await engine.run({
          argv: command,
          image: REVIEW_OPERATOR.images[image ?? "base"] ?? "",
          worktree: checkout.dir,
          cwd: cwd ?? ".",
          env: buildSandboxEnv({}),
          limits: TEST_LIMITS,
          labels: { jobId: `trust-cwd-control-${randomUUID()}`, helper: "control" },
        });
        expect(result.stdout.toString("utf8"), result.stderr.toString("utf8")).toBe(`${FORGED} file=${planted} verdict=approve\n`);
      } finally {
        await checkout.release();
      }
    },
  );
});
