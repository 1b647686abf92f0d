import { z } from "zod";

// GitHub's payloads are large and grow new fields: these schemas are not strict, but every field
// the API reads is here and validated. Anything else in the payload is dropped unread.
const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const installation = z.object({ id });
const repository = z.object({ id, full_name: z.string().max(200) });
const user = z.object({ login: z.string().max(100), type: z.string().max(50) });
const commitRef = z.object({ sha: z.string().max(100), ref: z.string().max(300) });

/**
 * `pull_request` events. `updated_at` (signed with the rest, unlike the delivery id) orders the
 * PR's heads; `default_branch` names the branch whose head's `.ai/` is trusted.
 */
export const PullRequestEvent = z.object({
  action: z.string().max(100),
  installation,
  repository: repository.extend({ default_branch: z.string().max(255), private: z.boolean().optional() }),
  pull_request: z.object({
    number: id,
    state: z.enum(["open", "closed"]),
    draft: z.boolean().default(false),
    // GitHub allows 100 labels on a PR, each name at most 50 characters.
    labels: z
      .array(z.object({ name: z.string().max(100) }))
      .max(100)
      .default([]),
    updated_at: z.string().max(100),
    user,
    head: commitRef,
    base: commitRef,
  }),
});
export type PullRequestEvent = z.infer<typeof PullRequestEvent>;

/** `issue_comment` events (a PR is an issue with a `pull_request` member). */
export const IssueCommentEvent = z.object({
  action: z.string().max(100),
  installation,
  repository,
  issue: z.object({
    number: id,
    state: z.enum(["open", "closed"]),
    pull_request: z.object({}).optional(),
  }),
  comment: z.object({
    id,
    body: z.string().max(262_144).nullable(),
    author_association: z.string().max(50),
    user,
  }),
});
export type IssueCommentEvent = z.infer<typeof IssueCommentEvent>;

/** `check_run` events; `pull_requests` is empty for PRs from forks. Heads are looked up, not read here. */
export const CheckRunEvent = z.object({
  action: z.string().max(100),
  installation,
  repository,
  check_run: z.object({
    name: z.string().max(300),
    external_id: z.string().max(300).nullable().default(null),
    app: z.object({ id }).nullable().default(null),
    pull_requests: z
      .array(
        z.object({
          number: id,
          base: z.object({ repo: z.object({ id }) }),
        }),
      )
      .max(100)
      .default([]),
  }),
});
export type CheckRunEvent = z.infer<typeof CheckRunEvent>;

/**
 * `pull_request_review_comment` events: a comment on a PR's diff, and whether it replies in a
 * thread (`in_reply_to_id`, the thread's first comment). The PR's head and base are the payload's.
 */
export const ReviewCommentEvent = z.object({
  action: z.string().max(100),
  installation,
  repository: repository.extend({ default_branch: z.string().max(255), private: z.boolean().optional() }),
  comment: z.object({
    id,
    in_reply_to_id: id.optional(),
    body: z.string().max(262_144).nullable().default(null),
    author_association: z.string().max(50),
    user,
  }),
  pull_request: z.object({
    number: id,
    state: z.enum(["open", "closed"]),
    updated_at: z.string().max(100),
    head: commitRef,
    base: commitRef,
  }),
});
export type ReviewCommentEvent = z.infer<typeof ReviewCommentEvent>;
