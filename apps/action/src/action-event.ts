import { z } from "zod";
import { TRUSTED_ASSOCIATIONS } from "@reviewbot/contracts/trusted-associations";

/** The review command: the first line of a maintainer's comment on a PR, as the fleet takes it. */
export const REVIEW_COMMAND = "/review";
/** Who may ask for a review by comment: people with a push-level role, as in the fleet. */
const COMMAND_ASSOCIATIONS: readonly string[] = TRUSTED_ASSOCIATIONS;

const pullNumber = z
  .number()
  .int()
  .positive()
  .max(2 ** 31);

const PullRequestPayload = z.object({
  pull_request: z.object({ number: pullNumber, head: z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/) }) }),
});

const IssueCommentPayload = z.object({
  action: z.string().max(50),
  issue: z.object({ number: pullNumber, pull_request: z.object({}).optional() }),
  comment: z.object({
    body: z.string().max(262_144).nullable(),
    author_association: z.string().max(50),
    user: z.object({ type: z.string().max(50) }),
  }),
});

/** What a run does for its event: review one PR (at the event's head, when it names one), or skip with a reason. */
export type ActionEvent =
  | { readonly kind: "review"; readonly event: string; readonly pullNumber: number; readonly headSha?: string }
  | { readonly kind: "skip"; readonly reason: string };

/**
 * Decides from the workflow's event what to review. The payload is GitHub's, but everything in it
 * that a PR author or commenter wrote is untrusted: only the PR number, the head SHA of a
 * `pull_request[_target]` event (which commit to review, nothing more) and, for a comment, its
 * first line, author association and user type are used. Base, head and the default branch of a
 * dispatched or commanded review are asked of the API by the caller.
 *
 * @param payload the event file's JSON (already size-capped and parsed), or undefined without one.
 * @param dispatched the `pull-request` input, for `workflow_dispatch`.
 */
export function decideActionEvent(name: string | undefined, payload: unknown, dispatched: number | undefined): ActionEvent {
  switch (name) {
    case "pull_request":
    case "pull_request_target": {
      const parsed = PullRequestPayload.safeParse(payload);
      if (!parsed.success) return { kind: "skip", reason: `the ${name} event's payload names no pull request` };
      const pr = parsed.data.pull_request;
      return { kind: "review", event: name, pullNumber: pr.number, headSha: pr.head.sha };
    }
    case "workflow_dispatch":
      if (dispatched === undefined) return { kind: "skip", reason: "workflow_dispatch without the `pull-request` input: no PR to review" };
      return { kind: "review", event: name, pullNumber: dispatched };
    case "issue_comment":
      return decideComment(payload);
    default:
      return { kind: "skip", reason: `the ${name ?? "(unnamed)"} event does not carry a pull request to review` };
  }
}

function decideComment(payload: unknown): ActionEvent {
  const parsed = IssueCommentPayload.safeParse(payload);
  if (!parsed.success) return { kind: "skip", reason: "the issue_comment event's payload is not a comment" };
  const { action, issue, comment } = parsed.data;
  if (action !== "created") return { kind: "skip", reason: "a comment edited or deleted asks for nothing" };
  if (issue.pull_request === undefined) return { kind: "skip", reason: "the comment is on an issue, not a pull request" };
  if ((comment.body ?? "").split(/\r?\n/, 1)[0]?.trim() !== REVIEW_COMMAND) return { kind: "skip", reason: `the comment is not ${REVIEW_COMMAND}` };
  // An app echoing the command must not start a loop; only people with push-level roles may ask.
  if (comment.user.type === "Bot") return { kind: "skip", reason: "the command came from an app" };
  if (!COMMAND_ASSOCIATIONS.includes(comment.author_association))
    return { kind: "skip", reason: "the command's author is not an owner, member or collaborator" };
  return { kind: "review", event: "issue_comment", pullNumber: issue.number };
}
