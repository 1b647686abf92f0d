import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { checkoutFork } from "../support/clone-cache-harness.js";
import { createUpstream } from "../support/git-fixture.js";
import { treeWithPaths } from "../support/git-trees.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();

/**
 * Symlinks directly below `dir` whose target, resolved by the kernel, lies outside `dir`.
 * (`realpathSync.native`: Node's JS realpath normalises `a/..` lexically, as the overlay does.)
 */
function escapingLinks(dir: string): string[] {
  const inside = realpathSync.native(dir);
  return readdirSync(dir)
    .filter((name) => lstatSync(join(dir, name)).isSymbolicLink())
    .filter((name) => {
      const target = realpathSync.native(join(dir, name));
      return target !== inside && !target.startsWith(`${inside}${sep}`);
    });
}

describe("base .ai/ entries the overlay must not materialise as they are", () => {
  it("keeps symlinks that stay inside .ai/ and skips those that leave it, lexically or through another link", async () => {
    const root = await tempDir("base-links");
    const upstream = createUpstream(root);
    upstream.commitOn("main", (tree) => {
      tree.symlink(".ai/inside", "prompts/system.txt");
      tree.symlink(".ai/escape", "../src");
      tree.symlink(".ai/absolute", "/etc");
      tree.symlink(".ai/self", ".");
      // Lexically "self/.." is ".ai" itself; on disk it is .ai/.. — the PR-controlled work tree.
      tree.symlink(".ai/via-self", "self/..");
    });
    upstream.commitTreeOn("main", treeWithPaths(upstream, "main^{tree}", [{ mode: "160000", path: ".ai/vendor", sha: upstream.rev("main") }]));
    upstream.git(["branch", "--force", "fork", "main"]);
    const co = await checkoutFork(root, upstream);

    expect(co.overlay.files).toContain(".ai/inside");
    expect(co.overlay.skipped.map((entry) => entry.path).sort()).toEqual(expect.arrayContaining([".ai/absolute", ".ai/escape", ".ai/vendor"]));
    expect(escapingLinks(join(co.dir, ".ai"))).toEqual([]);
    await co.release();
  });
});
