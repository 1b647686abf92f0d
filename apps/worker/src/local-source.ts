import { realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { ReviewSource, SourceCheckout } from "./review-source.js";

/**
 * The embedded-defaults source: repository `owner/name` is the git repository at
 * `<reposDir>/owner/name`, which must stay inside `reposDir` (after symlinks). A local repository
 * has no `refs/pull/*`, so the head is fetched by the job's SHA (git serves any object over the
 * local transport) and the base by its branch, whose history must contain the job's base SHA;
 * `.ai/` comes from the head of the job's default branch.
 */
export function createLocalSource(reposDir: string): ReviewSource {
  return {
    name: "local",
    protocols: ["file"],
    async resolve(job: ReviewJob): Promise<SourceCheckout> {
      const root = await realpath(resolve(reposDir)).catch((err: unknown) => {
        throw new AppError("CONFIG_INVALID", `REVIEWBOT_LOCAL_REPOS_DIR: cannot read ${reposDir}`, { cause: err });
      });
      const repo = await realpath(join(root, job.repository)).catch((err: unknown) => {
        throw new AppError("REPO_NOT_FOUND", `no local repository ${job.repository}`, { cause: err });
      });
      const inside = relative(root, repo);
      if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
        throw new AppError("POLICY_DENIED", `local repository ${job.repository} resolves outside REVIEWBOT_LOCAL_REPOS_DIR`);
      }
      return {
        request: {
          remote: repo,
          head: { ref: job.headSha, sha: job.headSha },
          base: { ref: `refs/heads/${job.baseRef}`, sha: job.baseSha },
          config: { ref: `refs/heads/${job.defaultBranch}` },
        },
        secrets: [],
        release: () => undefined,
      };
    },
  };
}
