import { AppError } from "@reviewbot/core/errors";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { ReviewSource, SourceCheckout } from "./review-source.js";

/**
 * The production source: `${gitUrl}/${repository}.git`, fetched with the job's installation token
 * (from the api's claim; read-only, one repository, revoked when the job ends).
 * The token is registered with the scrubber the moment it arrives and reaches git only through the
 * clone cache's askpass environment: never argv, the URL, .git/config, a log, the job or a sandbox.
 */
export function createGitHubSource(gitUrl: string, scrubber: SecretScrubber): ReviewSource {
  const base = gitUrl.replace(/\/+$/, "");
  return {
    name: "github",
    protocols: [new URL(base).protocol.replace(/:$/, "")],
    resolve(job: ReviewJob, token: string | null): Promise<SourceCheckout> {
      if (token === null) {
        return Promise.reject(
          new AppError("CONFIG_INVALID", "the api minted no repository token: it runs without a GitHub App (REVIEWBOT_SOURCE=github needs one)"),
        );
      }
      scrubber.register(token);
      return Promise.resolve({
        request: {
          remote: `${base}/${job.repository}.git`,
          head: { ref: `refs/pull/${job.pullNumber}/head`, sha: job.headSha },
          base: { ref: `refs/heads/${job.baseRef}`, sha: job.baseSha },
          // `.ai/` from the default branch's head, never the base a PR chose: a stale base may hold
          // a weaker config.
          config: { ref: `refs/heads/${job.defaultBranch}` },
          credentials: { username: "x-access-token", password: token },
        },
        secrets: [token],
        release: () => {
          scrubber.forget(token);
        },
      });
    },
  };
}
