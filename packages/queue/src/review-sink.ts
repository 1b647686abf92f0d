import type { AiRetriedTask, AnswerTask, CompletedTask, GitHubTask, PausedTask, SummaryTask } from "@reviewbot/contracts/github-task";

export type StartedTask = Extract<GitHubTask, { kind: "started" }>;
export type FailedTask = Extract<GitHubTask, { kind: "failed" }>;

/**
 * Where review results go: GitHub (check runs, annotations, review comments) in production, a
 * directory of files under the embedded defaults. Every method is idempotent: a retried or
 * stalled task updates what it published before, never duplicates it.
 */
export interface ReviewSink {
  started(task: StartedTask): Promise<void>;
  /** `supersededBy` is the PR's newer head when the result is outdated: it must not be published as current. */
  completed(task: CompletedTask, supersededBy: string | null): Promise<void>;
  failed(task: FailedTask): Promise<void>;
  /** A job's answer to a reply, posted in its thread. */
  answered(task: AnswerTask): Promise<void>;
  /** The AI review, retried alone, completes the review it belongs to: that review's result is replaced by `task.report`. */
  aiRetried(task: AiRetriedTask): Promise<void>;
  /** The PR's summary comment rendered again from what was stored at its last review; `skipped` when there is none to render. */
  summary(task: SummaryTask): Promise<"done" | "skipped">;
  /** A push the `pause` command kept from review: its own check run says so, completed. */
  paused(task: PausedTask): Promise<void>;
}
