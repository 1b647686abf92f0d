import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectAppError, jobEntries, openCache } from "../support/clone-cache-harness.js";
import { createUpstream, type Upstream } from "../support/git-fixture.js";
import { useTempDirs } from "../support/temp-dirs.js";
import { expectAiMatchesBase } from "../support/worktree-assertions.js";

// `.ai/` is the default branch's, at its head. A PR chooses its base branch, so a
// PR against a stale branch whose `.ai/` is weaker must still be reviewed with the default branch's.

const tempDir = useTempDirs();

const STRONG_TOOLS = '{"helpers":[{"name":"lint","command":["ruff","check","."]},{"name":"secrets","command":["gitleaks","detect"]}]}\n';
const WEAK_TOOLS = '{"helpers":[]}\n';

/** `main` (the default branch) with a strong `.ai/`; `stale`, branched before it, with a weak one; `fork` off `stale`. */
async function staleBranchPull(label: string): Promise<{ root: string; upstream: Upstream; staleSha: string; headSha: string }> {
  const root = await tempDir(label);
  const upstream = createUpstream(root);
  upstream.git(["branch", "stale", "main"]);
  const staleSha = upstream.commitOn("stale", (tree) => {
    tree.write(".ai/review-tools.json", WEAK_TOOLS);
    tree.write(".ai/review-rules.md", "# Rules\n\nAnything goes.\n");
  });
  upstream.commitOn("main", (tree) => {
    tree.write(".ai/review-tools.json", STRONG_TOOLS);
  });
  upstream.git(["branch", "--force", "fork", "stale"]);
  const headSha = upstream.commitOn("fork", (tree) => {
    tree.write("src/pr.ts", "export const pr = 1;\n");
  });
  return { root, upstream, staleSha, headSha };
}

describe("the trusted .ai/ comes from the default branch's head", () => {
  it("for a PR against a stale branch with a weaker .ai/, the default branch's .ai/ is written", async () => {
    const { root, upstream, staleSha, headSha } = await staleBranchPull("stale-base");
    const cache = await openCache(join(root, "cache"));

    const co = await cache.checkout({
      remote: upstream.dir,
      head: { ref: "fork", sha: headSha },
      base: { ref: "refs/heads/stale", sha: staleSha },
      config: { ref: "refs/heads/main" },
    });

    expectAiMatchesBase(upstream, "main", co.dir);
    expect(readFileSync(join(co.dir, ".ai/review-tools.json"), "utf8")).toBe(STRONG_TOOLS);
    expect(co.overlay).toMatchObject({ source: "ref", failedClosed: false, commit: { from: "ref", ref: "refs/heads/main", sha: upstream.rev("main") } });
    // The diff is still the PR's: against the branch it targets.
    expect(co.baseSha).toBe(staleSha);
    expect(co.diff.files.map((file) => file.path)).toEqual(["src/pr.ts"]);
    await co.release();
  });

  it("negative control: without a config ref (the CLI's base-commit mode) the stale branch's weaker .ai/ is what is written", async () => {
    const { root, upstream, staleSha, headSha } = await staleBranchPull("stale-base-control");
    const cache = await openCache(join(root, "cache"));

    const co = await cache.checkout({ remote: upstream.dir, head: { ref: "fork", sha: headSha }, base: { ref: "refs/heads/stale", sha: staleSha } });

    expectAiMatchesBase(upstream, "stale", co.dir);
    expect(readFileSync(join(co.dir, ".ai/review-tools.json"), "utf8")).toBe(WEAK_TOOLS);
    expect(co.overlay).toMatchObject({ source: "base", commit: { from: "base", ref: "refs/heads/stale", sha: staleSha } });
    await co.release();
  });

  it("takes the default branch's head, not the older base commit the event named", async () => {
    const root = await tempDir("moved-default");
    const upstream = createUpstream(root);
    const eventBase = upstream.rev("main");
    upstream.commitOn("fork", (tree) => {
      tree.write("src/pr.ts", "export const pr = 1;\n");
    });
    upstream.commitOn("main", (tree) => {
      tree.write(".ai/review-tools.json", STRONG_TOOLS);
    });
    const cache = await openCache(join(root, "cache"));

    const co = await cache.checkout({ remote: upstream.dir, head: { ref: "fork" }, base: { ref: "main", sha: eventBase }, config: { ref: "refs/heads/main" } });

    expect(co.baseSha).toBe(eventBase);
    expect(co.overlay.commit).toEqual({ from: "ref", ref: "refs/heads/main", sha: upstream.rev("main") });
    expect(readFileSync(join(co.dir, ".ai/review-tools.json"), "utf8")).toBe(STRONG_TOOLS);
    await co.release();
  });

  it("a default branch without .ai/ means none, even when the PR's base has one", async () => {
    const { root, upstream, staleSha, headSha } = await staleBranchPull("default-without-ai");
    upstream.commitOn("main", (tree) => {
      tree.remove(".ai");
    });
    const cache = await openCache(join(root, "cache"));

    const co = await cache.checkout({
      remote: upstream.dir,
      head: { ref: "fork", sha: headSha },
      base: { ref: "stale", sha: staleSha },
      config: { ref: "refs/heads/main" },
    });

    expectAiMatchesBase(upstream, "main", co.dir);
    expect(co.overlay).toEqual({
      source: "absent",
      failedClosed: false,
      commit: { from: "ref", ref: "refs/heads/main", sha: upstream.rev("main") },
      files: [],
      skipped: [],
    });
    await co.release();
  });
});

describe("the config ref fails closed", () => {
  it("a default branch the remote does not have is REF_NOT_FOUND: no review with another .ai/, nothing left behind", async () => {
    const { root, upstream, staleSha } = await staleBranchPull("missing-default");
    const cacheRoot = join(root, "cache");
    const cache = await openCache(cacheRoot);

    const error = await expectAppError(
      cache.checkout({ remote: upstream.dir, head: { ref: "fork" }, base: { ref: "stale", sha: staleSha }, config: { ref: "refs/heads/gone" } }),
      "REF_NOT_FOUND",
    );

    expect(error.message).toMatch(/refs\/heads\/gone/);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });

  it("a config commit that exists only in the fork is not accepted as the trusted one", async () => {
    const { root, upstream, headSha } = await staleBranchPull("config-from-fork");
    const cache = await openCache(join(root, "cache"));

    const error = await expectAppError(
      cache.checkout({ remote: upstream.dir, head: { ref: "fork" }, base: { ref: "stale" }, config: { ref: "refs/heads/main", sha: headSha } }),
      "REF_NOT_FOUND",
    );

    expect(error.message).toContain(`config ${headSha} is not in the history of refs/heads/main`);
  });

  it.each(["--upload-pack=touch /tmp/x", "main..fork", "refs/heads/.hidden"])("a hostile config ref %j is POLICY_DENIED before git runs", async (ref) => {
    const { root, upstream } = await staleBranchPull("config-hostile");
    const cache = await openCache(join(root, "cache"));

    const error = await expectAppError(
      cache.checkout({ remote: upstream.dir, head: { ref: "fork" }, base: { ref: "stale" }, config: { ref } }),
      "POLICY_DENIED",
    );

    expect(error.message).toMatch(/^config\.ref: /);
  });
});
