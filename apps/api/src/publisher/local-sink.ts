import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import { CHECK_RUN_NAME } from "@reviewbot/github/find-or-create-check-run";
import { renderCheckRun, type CheckRunOutcome } from "@reviewbot/github/render-check-run";
import type { CompletedTask } from "@reviewbot/contracts/github-task";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import type { ReviewSink } from "@reviewbot/queue/review-sink";

/**
 * A ReviewSink that writes what the check run would be, one JSON file per PR head:
 * `<dir>/<owner>/<repo>/<pullNumber>/<headSha>.json`. Files are replaced atomically (temp file +
 * rename), so a reader never sees half a file, and the same task twice writes the same bytes. A
 * late `started` never overwrites a finished result.
 */
export function createLocalSink(dir: string): ReviewSink {
  const completed = async (task: CompletedTask, supersededBy: string | null): Promise<void> => {
    const outcome: CheckRunOutcome = supersededBy === null ? { kind: "completed", report: task.report } : { kind: "superseded", supersededBy };
    await writeAtomically(localSinkPath(dir, task.review), {
      ...identity(task.review, task.reviewJobId),
      status: "completed",
      ...renderCheckRun(outcome, { headSha: task.review.headSha }),
    });
  };
  return {
    async started(task) {
      const path = localSinkPath(dir, task.review);
      const existing = await readFile(path, "utf8").catch(() => null);
      if (existing !== null && (JSON.parse(existing) as { status?: unknown }).status === "completed") return;
      await writeAtomically(path, { ...identity(task.review, task.reviewJobId), status: "in_progress" });
    },
    completed,
    async aiRetried(task) {
      // The head's file is the review's check run: the report with the retried AI review replaces it.
      await completed({ ...task, kind: "completed" }, null);
    },
    async answered(task) {
      // The embedded defaults have no threads: the answer is written beside the PR head's result.
      await writeAtomically(`${localSinkPath(dir, task.review)}.answer-${String(task.review.reply?.commentId ?? 0)}`, {
        ...identity(task.review, task.reviewJobId),
        answer: task.answer,
      });
    },

    async paused(task) {
      await writeAtomically(localSinkPath(dir, task.review), {
        ...identity(task.review, task.reviewJobId),
        status: "completed",
        ...renderCheckRun({ kind: "paused" }, { headSha: task.review.headSha }),
      });
    },

    summary() {
      // The embedded defaults have no PR conversation: a summary comment exists only on GitHub.
      return Promise.resolve("skipped" as const);
    },

    async failed(task) {
      await writeAtomically(localSinkPath(dir, task.review), {
        ...identity(task.review, task.reviewJobId),
        status: "completed",
        ...renderCheckRun({ kind: "failed", code: task.code, reason: task.reason }, { headSha: task.review.headSha }),
      });
    },
  };
}

function identity(review: ReviewJob, reviewJobId: string): Record<string, unknown> {
  return { name: CHECK_RUN_NAME, repository: review.repository, pullNumber: review.pullNumber, headSha: review.headSha, reviewJobId };
}

/** The file of one head; `.` and `..` (which the owner/name pattern admits) never become path parts. */
export function localSinkPath(dir: string, review: Pick<ReviewJob, "repository" | "pullNumber" | "headSha">): string {
  const parts = review.repository.split("/");
  if (parts.length !== 2 || parts.some((part) => part === "" || part === "." || part === "..")) {
    throw new AppError("JOB_INVALID", "the repository name cannot be a path", { details: { repository: review.repository } });
  }
  return join(dir, ...parts, String(review.pullNumber), `${review.headSha}.json`);
}

async function writeAtomically(path: string, content: unknown): Promise<void> {
  const directory = join(path, "..");
  await mkdir(directory, { recursive: true });
  const temp = join(directory, `.${randomBytes(8).toString("hex")}.tmp`);
  try {
    await writeFile(temp, `${JSON.stringify(content, null, 2)}\n`, { flag: "wx", mode: 0o644 });
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}
