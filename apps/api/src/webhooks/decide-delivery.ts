import type { z } from "zod";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import type { CommandTask, ResolveTask } from "@reviewbot/contracts/github-task";
import { parsePrCommand, type PrCommandName } from "@reviewbot/contracts/pr-command";
import { PullLabel, ReviewJob } from "@reviewbot/contracts/review-job";
import { TRUSTED_ASSOCIATIONS } from "@reviewbot/contracts/trusted-associations";
import { dismissalReason } from "@reviewbot/github/dismissal-reply";
import { CheckRunEvent, IssueCommentEvent, PullRequestEvent, ReviewCommentEvent } from "./webhook-payloads.js";

/** What to do with a verified delivery. `reason` is a fixed word: it becomes a metric label. */
export type DeliveryDecision =
  | { readonly kind: "review"; readonly job: ReviewJob }
  | { readonly kind: "resolve"; readonly task: ResolveTask }
  | { readonly kind: "answer"; readonly job: ReviewJob }
  | { readonly kind: "command"; readonly task: CommandTask }
  | { readonly kind: "dismiss"; readonly job: ReviewJob }
  | { readonly kind: "ping" }
  | { readonly kind: "ignore"; readonly reason: IgnoreReason };

export type IgnoreReason =
  | "event_not_handled"
  | "action_not_handled"
  | "draft"
  | "closed"
  | "bot_author"
  | "not_a_pull_request"
  | "not_the_command"
  | "author_not_trusted"
  | "not_our_check_run"
  | "no_pull_request"
  | "not_a_reply"
  | "answers_off"
  | "paused";

export interface DeliveryFilter {
  /** Lower-case logins whose PRs are never reviewed (Bot accounts always are skipped). */
  readonly botLogins: readonly string[];
  /** The first line of a comment that asks for a review, e.g. `/review`. */
  readonly reviewCommand: string;
  /** Our App's slug (`GET /app`): comments whose first line is `@<slug> <command>`; null (no App): only {@link reviewCommand}. */
  readonly appSlug: string | null;
  /** The name of our check run; a rerequest of another app's run is not ours. */
  readonly checkRunName: string;
  /** Our App's id, when known: a check run of another app with the same name is not ours. */
  readonly appId: number | null;
  /** `pull_request` actions that start a review (a subset of {@link PULL_REQUEST_ACTIONS}). */
  readonly pullRequestActions: readonly string[];
  /** Who may ask for a review by comment (a subset of {@link COMMAND_ASSOCIATIONS}), and be answered in a thread. */
  readonly commandAssociations: readonly string[];
  /** Whether replies in our review threads are answered: only with a model configured. */
  readonly answers: boolean;
  /**
   * The operator's ceilings on automatic reviews (REVIEWBOT_DRAFTS, REVIEWBOT_BOT_PULL_REQUESTS):
   * `never` ignores such a PR here; `repository` enqueues it, and the trusted `.ai/review-config.json`
   * (read by the worker) says whether it is reviewed or skipped.
   */
  readonly drafts: CeilingChoice;
  readonly botPullRequests: CeilingChoice;
}

/** What the operator lets a repository's settings decide. */
export const CEILING_CHOICES = ["never", "repository"] as const;
export type CeilingChoice = (typeof CEILING_CHOICES)[number];

/** The `pull_request` actions an operator may choose to review; all of them by default. */
export const PULL_REQUEST_ACTIONS = ["opened", "reopened", "synchronize", "ready_for_review"] as const;

/** The comment authors an operator may trust with the review command; all of them by default. */
export const COMMAND_ASSOCIATIONS = TRUSTED_ASSOCIATIONS;

/**
 * The event filter: turns a verified delivery into a review, a resolve task (a PR looked up by
 * number: comments and check-run re-runs), a ping, or a reason to ignore it. Pure; an invalid
 * payload field is WEBHOOK_MALFORMED.
 */
export function decideDelivery(event: string, deliveryId: string, payload: unknown, filter: DeliveryFilter): DeliveryDecision {
  switch (event) {
    case "ping":
      return { kind: "ping" };
    case "pull_request":
      return decidePullRequest(parsePayload(PullRequestEvent, payload), deliveryId, filter);
    case "issue_comment":
      return decideComment(parsePayload(IssueCommentEvent, payload), deliveryId, filter);
    case "check_run":
      return decideCheckRun(parsePayload(CheckRunEvent, payload), deliveryId, filter);
    case "pull_request_review_comment":
      return decideReviewComment(parsePayload(ReviewCommentEvent, payload), deliveryId, filter);
    default:
      return { kind: "ignore", reason: "event_not_handled" };
  }
}

function decidePullRequest(event: PullRequestEvent, deliveryId: string, filter: DeliveryFilter): DeliveryDecision {
  const pr = event.pull_request;
  if (!filter.pullRequestActions.includes(event.action)) return { kind: "ignore", reason: "action_not_handled" };
  if (pr.state !== "open") return { kind: "ignore", reason: "closed" };
  if (pr.draft && filter.drafts === "never") return { kind: "ignore", reason: "draft" };
  // A login the operator lists is never reviewed; an App's PR only if the operator lets the repository decide.
  const authorBot = pr.user.type === "Bot";
  if (filter.botLogins.includes(pr.user.login.toLowerCase()) || (authorBot && filter.botPullRequests === "never"))
    return { kind: "ignore", reason: "bot_author" };
  // Only names a job can carry (all of GitHub's): a name it could not would fail the whole delivery.
  const labels = pr.labels.map((label) => label.name).filter((name) => PullLabel.safeParse(name).success);
  return { kind: "review", job: jobOf(event, deliveryId, "pull_request", null, { draft: pr.draft, labels, authorBot }) };
}

/** A job for the PR a payload carries, at the head it names (`headFrom: event`). */
function jobOf(
  event: PullRequestEvent | ReviewCommentEvent,
  deliveryId: string,
  trigger: ReviewJob["trigger"],
  reply: ReviewJob["reply"],
  pull?: ReviewJob["pull"],
): ReviewJob {
  const pr = event.pull_request;
  return parsePayload(ReviewJob, {
    installationId: event.installation.id,
    repositoryId: event.repository.id,
    repository: event.repository.full_name,
    pullNumber: pr.number,
    headSha: pr.head.sha,
    baseSha: pr.base.sha,
    baseRef: pr.base.ref,
    defaultBranch: event.repository.default_branch,
    repositoryPrivate: event.repository.private !== false,
    pullUpdatedAt: pr.updated_at,
    headFrom: "event",
    deliveryId,
    trigger,
    reply,
    pull,
  });
}

/**
 * A comment on a PR: `/review`, or a command `@<slug> …` (only comments carry commands: the PR's
 * description never does), from someone with a push-level role and not an app (ourselves included).
 */
function decideComment(event: IssueCommentEvent, deliveryId: string, filter: DeliveryFilter): DeliveryDecision {
  if (event.action !== "created") return { kind: "ignore", reason: "action_not_handled" };
  if (event.issue.pull_request === undefined) return { kind: "ignore", reason: "not_a_pull_request" };
  if (event.issue.state !== "open") return { kind: "ignore", reason: "closed" };
  const body = event.comment.body ?? "";
  const review = body.split(/\r?\n/, 1)[0]?.trim() === filter.reviewCommand;
  const command = review ? null : commandIn(body, filter);
  if (!review && command === null) return { kind: "ignore", reason: "not_the_command" };
  // An app echoing the command must not start a loop; only people with push-level roles may ask.
  if (event.comment.user.type === "Bot") return { kind: "ignore", reason: "bot_author" };
  if (!filter.commandAssociations.includes(event.comment.author_association)) return { kind: "ignore", reason: "author_not_trusted" };
  if (command !== null) return commandOf(event, event.issue.number, deliveryId, command, { on: "issue", id: event.comment.id });
  return resolve(event, event.issue.number, deliveryId, "issue_comment");
}

function commandIn(body: string | null | undefined, filter: DeliveryFilter): PrCommandName | null {
  return filter.appSlug === null ? null : parsePrCommand(body ?? "", filter.appSlug);
}

/**
 * A reply in a review thread, from someone with a push-level role and not an app (our own answers
 * included): a command (`@<slug> …` on its first line); a dismissal of the thread's finding when
 * its first line says so (`won't fix`, `false positive`: packages/github dismissal-reply.ts), with or
 * without a model; or else a job that answers it. Whether the thread is one of ours is the api's record's to say, when the delivery is accepted; anyone else's
 * reply is a prompt-injection channel, ignored.
 */
function decideReviewComment(event: ReviewCommentEvent, deliveryId: string, filter: DeliveryFilter): DeliveryDecision {
  const { comment, pull_request: pr } = event;
  if (event.action !== "created") return { kind: "ignore", reason: "action_not_handled" };
  if (comment.in_reply_to_id === undefined) return { kind: "ignore", reason: "not_a_reply" };
  if (pr.state !== "open") return { kind: "ignore", reason: "closed" };
  if (comment.user.type === "Bot" || filter.botLogins.includes(comment.user.login.toLowerCase())) return { kind: "ignore", reason: "bot_author" };
  if (!filter.commandAssociations.includes(comment.author_association)) return { kind: "ignore", reason: "author_not_trusted" };
  const command = commandIn(comment.body, filter);
  if (command !== null) return commandOf(event, pr.number, deliveryId, command, { on: "thread", id: comment.id, threadId: comment.in_reply_to_id });
  const job = jobOf(event, deliveryId, "review_comment", { commentId: comment.id, threadId: comment.in_reply_to_id });
  if (dismissalReason(comment.body) !== null) return { kind: "dismiss", job };
  if (!filter.answers) return { kind: "ignore", reason: "answers_off" };
  return { kind: "answer", job };
}

function decideCheckRun(event: CheckRunEvent, deliveryId: string, filter: DeliveryFilter): DeliveryDecision {
  const run = event.check_run;
  if (event.action !== "rerequested") return { kind: "ignore", reason: "action_not_handled" };
  if (run.name !== filter.checkRunName) return { kind: "ignore", reason: "not_our_check_run" };
  if (filter.appId !== null && run.app !== null && run.app.id !== filter.appId) return { kind: "ignore", reason: "not_our_check_run" };
  // `pull_requests` may list PRs of other repositories in the fork network: only ours count. The
  // payload carries no time to order its head by, and a re-run may be asked of an old commit's run,
  // so the PR is looked up (resolve): the review is of the head GitHub reports now.
  const pr = run.pull_requests.find((candidate) => candidate.base.repo.id === event.repository.id);
  if (pr !== undefined) return resolve(event, pr.number, deliveryId, "check_run");
  // Fork PRs come without `pull_requests`; our check runs carry the review job id as external_id.
  const fromExternalId = /^review\.(\d+)\.(\d+)\./.exec(run.external_id ?? "");
  if (fromExternalId !== null && Number(fromExternalId[1]) === event.repository.id) {
    return resolve(event, Number(fromExternalId[2]), deliveryId, "check_run");
  }
  return { kind: "ignore", reason: "no_pull_request" };
}

type RepositoryEvent = Pick<IssueCommentEvent, "installation" | "repository">;

function resolve(event: RepositoryEvent, pullNumber: number, deliveryId: string, trigger: ResolveTask["trigger"]): DeliveryDecision {
  return { kind: "resolve", task: { kind: "resolve", ...pullOf(event, pullNumber, deliveryId), trigger } };
}

/** The PR a comment or check run names, by number. */
function pullOf(
  event: RepositoryEvent,
  pullNumber: number,
  deliveryId: string,
): Pick<ReviewJob, "installationId" | "repositoryId" | "repository" | "pullNumber" | "deliveryId"> {
  return parsePayload(ReviewJob.pick({ installationId: true, repositoryId: true, repository: true, pullNumber: true, deliveryId: true }), {
    installationId: event.installation.id,
    repositoryId: event.repository.id,
    repository: event.repository.full_name,
    pullNumber,
    deliveryId,
  });
}

function commandOf(event: RepositoryEvent, pullNumber: number, deliveryId: string, command: PrCommandName, comment: CommandTask["comment"]): DeliveryDecision {
  return { kind: "command", task: { kind: "command", ...pullOf(event, pullNumber, deliveryId), command, comment } };
}

function parsePayload<T extends z.ZodType>(schema: T, payload: unknown): z.infer<T> {
  return parseOrThrow(schema, payload, "WEBHOOK_MALFORMED", { message: (problem) => `payload field ${problem}` });
}
