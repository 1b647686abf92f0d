import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Checkout } from "@reviewbot/overlay/clone-cache";
import { parseOperatorPolicy, type OperatorPolicy } from "@reviewbot/policy/operator-policy";
import { parseRepoConfig, type RepoConfig } from "@reviewbot/policy/repo-config";
import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import { forkRequest, openCache } from "./clone-cache-harness.js";
import { createUpstream, type Upstream, type WorkTreeWriter } from "./git-fixture.js";
import { reachableTempDir } from "./temp-dirs.js";
import { BASE_IMAGE } from "./sandbox-specs.js";

export const PYTHON_IMAGE = "localhost/reviewbot/python:latest";

/** The base commit's helpers: each runs the fork's `attacks/$REVIEWBOT_CASE.sh` through `.ai/run.sh`. */
export const BASE_REVIEW_TOOLS = {
  helpers: [
    { name: "attack", description: "runs one attack case of the fork", command: ["sh", ".ai/run.sh"], image: "base" },
    { name: "attack-python", description: "the same in the python image", command: ["sh", ".ai/run.sh"], image: "python" },
  ],
};
export const BASE_RUN_SH = '#!/bin/sh\n# Trusted (base commit): runs the case the worker names.\nexec sh "attacks/$REVIEWBOT_CASE.sh"\n';

/** The operator of the suite: the local images under the names repositories use. */
export const ATTACK_OPERATOR: OperatorPolicy = parseOperatorPolicy({ images: { base: BASE_IMAGE, python: PYTHON_IMAGE } });

export interface AttackRepo {
  readonly upstream: Upstream;
  readonly checkout: Checkout;
  /** The config parsed from the checkout's `.ai/review-tools.json` (the base commit's). */
  readonly config: RepoConfig;
  helper(name: string): ResolvedHelper;
  dispose(): Promise<void>;
}

export interface AttackRepoOptions {
  /** Case name → the fork's `attacks/<case>.sh`. */
  readonly attacks: Readonly<Record<string, string>>;
  /** Further edits of the fork (to `.ai/`, say). */
  readonly editFork?: (tree: WorkTreeWriter) => void;
}

/**
 * A PR as an attacker would open it: `main` carries the trusted `.ai/` that runs attack cases,
 * `fork` adds the cases; checked out through the clone cache (base `.ai/` overlaid) into a
 * directory the sandbox user can reach, and the config parsed against {@link ATTACK_OPERATOR}.
 */
export async function prepareAttackRepo(options: AttackRepoOptions): Promise<AttackRepo> {
  const root = await reachableTempDir("attack-repo");
  try {
    const upstream = createUpstream(root);
    upstream.commitOn("main", (tree) => {
      tree.write(".ai/review-tools.json", `${JSON.stringify(BASE_REVIEW_TOOLS, null, 2)}\n`);
      tree.write(".ai/run.sh", BASE_RUN_SH, { executable: true });
    });
    upstream.git(["branch", "--force", "fork", "main"]);
    upstream.commitOn("fork", (tree) => {
      for (const [name, script] of Object.entries(options.attacks)) tree.write(`attacks/${name}.sh`, script);
      options.editFork?.(tree);
    });
    const cache = await openCache(join(root, "cache"));
    const checkout = await cache.checkout(forkRequest(upstream, { label: "attack" }));
    const config = parseRepoConfig(await readFile(join(checkout.dir, ".ai", "review-tools.json"), "utf8"), ATTACK_OPERATOR);
    return {
      upstream,
      checkout,
      config,
      helper(name) {
        const found = config.helpers.find((helper) => helper.name === name);
        if (found === undefined) throw new Error(`the base config has no helper ${name}`);
        return found;
      },
      async dispose() {
        await checkout.release();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }
}
