import { z } from "zod";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";

const httpUrl = z
  .url()
  .refine((value) => /^https?:\/\//.test(value), "must be an http(s) URL")
  .transform((value) => value.replace(/\/+$/, ""));

/**
 * What the runner tells a JavaScript action of its job (GitHub's "Default environment variables"):
 * the event, the workflow's repository, where the API and git hosting are (GitHub Enterprise
 * Server has its own), the job's temp directory, and the files for the step summary and outputs.
 * Set by the runner, not by a PR, but still checked: a repository name becomes a URL path.
 */
export const RunnerEnv = z.object({
  GITHUB_EVENT_NAME: z.string().min(1).max(100).optional(),
  GITHUB_EVENT_PATH: z.string().min(1).optional(),
  GITHUB_REPOSITORY: z.string().regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, "must be owner/name"),
  GITHUB_API_URL: httpUrl.default("https://api.github.com"),
  GITHUB_SERVER_URL: httpUrl.default("https://github.com"),
  RUNNER_TEMP: z.string().min(1),
  GITHUB_STEP_SUMMARY: z.string().min(1).optional(),
  GITHUB_OUTPUT: z.string().min(1).optional(),
  // Where earlier steps wrote their files: only the `sarif-input` files are read from it.
  GITHUB_WORKSPACE: z.string().min(1).optional(),
});
export type RunnerEnv = z.infer<typeof RunnerEnv>;

/** @throws AppError `CONFIG_INVALID` naming the variable (this runs only in a workflow's job). */
export function readRunnerEnv(env: NodeJS.ProcessEnv): RunnerEnv {
  return parseOrThrow(RunnerEnv, env, "CONFIG_INVALID");
}
