import { describe, expect, it } from "vitest";
import { COMMAND_ASSOCIATIONS, decideDelivery, PULL_REQUEST_ACTIONS, type DeliveryFilter } from "./decide-delivery.js";

const HEAD = "a".repeat(40);
const BASE = "b".repeat(40);
const DELIVERY = "72d3162e-cc78-11e3-81ab-4c9367dc0958";
const filter: DeliveryFilter = {
  botLogins: ["renovate-bot"],
  reviewCommand: "/review",
  appSlug: "reviewbot",
  checkRunName: "reviewbot",
  appId: 42,
  pullRequestActions: PULL_REQUEST_ACTIONS,
  commandAssociations: COMMAND_ASSOCIATIONS,
  answers: true,
  drafts: "never",
  botPullRequests: "never",
};
const UPDATED = "2024-05-06T07:08:09Z";
const envelope = { installation: { id: 7 }, repository: { id: 100, full_name: "octo/hello", default_branch: "trunk" } };

function pullRequest(action: string, pr: Record<string, unknown> = {}): unknown {
  return {
    ...envelope,
    action,
    pull_request: {
      number: 5,
      state: "open",
      draft: false,
      updated_at: UPDATED,
      user: { login: "alice", type: "User" },
      head: { sha: HEAD, ref: "feature" },
      base: { sha: BASE, ref: "main" },
      ...pr,
    },
  };
}

function comment(body: string | null, association = "MEMBER", extra: Record<string, unknown> = {}): unknown {
  return {
    ...envelope,
    action: "created",
    issue: { number: 5, state: "open", pull_request: { url: "x" } },
    comment: { id: 903, body, author_association: association, user: { login: "alice", type: "User" } },
    ...extra,
  };
}

/** A `pull_request_review_comment` payload: by default a member's reply (902) in thread 901 of PR 5. */
function reviewComment(patch: { action?: string; comment?: Record<string, unknown>; pull_request?: Record<string, unknown> } = {}): unknown {
  return {
    ...envelope,
    action: patch.action ?? "created",
    comment: { id: 902, in_reply_to_id: 901, author_association: "MEMBER", user: { login: "maintainer", type: "User" }, ...patch.comment },
    pull_request: {
      number: 5,
      state: "open",
      updated_at: UPDATED,
      head: { sha: HEAD, ref: "feature" },
      base: { sha: BASE, ref: "main" },
      ...patch.pull_request,
    },
  };
}

function checkRun(run: Record<string, unknown>, action = "rerequested"): unknown {
  return { ...envelope, action, check_run: { name: "reviewbot", app: { id: 42 }, external_id: null, pull_requests: [], ...run } };
}

const linkedPr = {
  number: 9,
  url: "https://api.github.com/repos/octo/hello/pulls/9",
  head: { sha: HEAD, ref: "feature" },
  base: { sha: BASE, ref: "main", repo: { id: 100 } },
};

describe("decideDelivery", () => {
  it.each([
    ["pull_request opened", "pull_request", pullRequest("opened"), "review"],
    ["pull_request reopened", "pull_request", pullRequest("reopened"), "review"],
    ["pull_request synchronize", "pull_request", pullRequest("synchronize"), "review"],
    ["pull_request ready_for_review", "pull_request", pullRequest("ready_for_review"), "review"],
    ["pull_request without draft field", "pull_request", pullRequest("opened", { draft: undefined }), "review"],
    ["pull_request edited", "pull_request", pullRequest("edited"), "ignore:action_not_handled"],
    ["pull_request labeled", "pull_request", pullRequest("labeled"), "ignore:action_not_handled"],
    ["a draft", "pull_request", pullRequest("opened", { draft: true }), "ignore:draft"],
    ["a closed PR", "pull_request", pullRequest("synchronize", { state: "closed" }), "ignore:closed"],
    ["a Bot author", "pull_request", pullRequest("opened", { user: { login: "dependabot[bot]", type: "Bot" } }), "ignore:bot_author"],
    ["a listed bot login (case-insensitive)", "pull_request", pullRequest("opened", { user: { login: "Renovate-Bot", type: "User" } }), "ignore:bot_author"],
    ["the command from a member", "issue_comment", comment("/review"), "resolve"],
    ["the command with more lines", "issue_comment", comment("  /review  \r\nplease"), "resolve"],
    ["the command from an owner", "issue_comment", comment("/review", "OWNER"), "resolve"],
    ["the command from a collaborator", "issue_comment", comment("/review", "COLLABORATOR"), "resolve"],
    ["the command from a contributor", "issue_comment", comment("/review", "CONTRIBUTOR"), "ignore:author_not_trusted"],
    ["the command from anyone", "issue_comment", comment("/review", "NONE"), "ignore:author_not_trusted"],
    ["the command not on the first line", "issue_comment", comment("hello\n/review"), "ignore:not_the_command"],
    ["a longer word", "issue_comment", comment("/reviewing"), "ignore:not_the_command"],
    ["an empty comment", "issue_comment", comment(null), "ignore:not_the_command"],
    [
      "the command from a Bot",
      "issue_comment",
      comment("/review", "MEMBER", { comment: { id: 903, body: "/review", author_association: "MEMBER", user: { login: "x[bot]", type: "Bot" } } }),
      "ignore:bot_author",
    ],
    ["a comment on an issue", "issue_comment", comment("/review", "MEMBER", { issue: { number: 5, state: "open" } }), "ignore:not_a_pull_request"],
    ["a comment on a closed PR", "issue_comment", comment("/review", "MEMBER", { issue: { number: 5, state: "closed", pull_request: {} } }), "ignore:closed"],
    ["an edited comment", "issue_comment", { ...(comment("/review") as object), action: "edited" }, "ignore:action_not_handled"],
    ["our check run rerequested with its PR (looked up)", "check_run", checkRun({ pull_requests: [linkedPr] }), "resolve"],
    ["our fork check run rerequested (external id)", "check_run", checkRun({ external_id: `review.100.9.${DELIVERY}` }), "resolve"],
    ["an external id of another repository", "check_run", checkRun({ external_id: `review.101.9.${DELIVERY}` }), "ignore:no_pull_request"],
    ["a check run without a PR", "check_run", checkRun({}), "ignore:no_pull_request"],
    [
      "a PR of another repository in the network",
      "check_run",
      checkRun({ pull_requests: [{ ...linkedPr, base: { ...linkedPr.base, repo: { id: 5 } } }] }),
      "ignore:no_pull_request",
    ],
    ["another check run", "check_run", checkRun({ name: "ci", pull_requests: [linkedPr] }), "ignore:not_our_check_run"],
    ["another app's run of the same name", "check_run", checkRun({ app: { id: 43 }, pull_requests: [linkedPr] }), "ignore:not_our_check_run"],
    ["a completed check run", "check_run", checkRun({ pull_requests: [linkedPr] }, "completed"), "ignore:action_not_handled"],
    ["ping", "ping", { zen: "Keep it logically awesome." }, "ping"],
    ["push", "push", { ref: "refs/heads/main" }, "ignore:event_not_handled"],
    ["an unknown event", "marketplace_purchase", {}, "ignore:event_not_handled"],
    ["an event name with digits", "projects_v2_item", { action: "edited" }, "ignore:event_not_handled"],
  ])("%s", (_name, event, payload, expected) => {
    const decision = decideDelivery(event, DELIVERY, payload, filter);
    expect(decision.kind === "ignore" ? `ignore:${decision.reason}` : decision.kind).toBe(expected);
  });

  it("builds the review job from the payload", () => {
    expect(decideDelivery("pull_request", DELIVERY, pullRequest("opened"), filter)).toEqual({
      kind: "review",
      job: {
        installationId: 7,
        repositoryId: 100,
        repository: "octo/hello",
        pullNumber: 5,
        headSha: HEAD,
        baseSha: BASE,
        baseRef: "main",
        defaultBranch: "trunk",
        repositoryPrivate: true,
        pullUpdatedAt: UPDATED,
        headFrom: "event",
        deliveryId: DELIVERY,
        trigger: "pull_request",
        reply: null,
        pull: { draft: false, labels: [], authorBot: false },
      },
    });
  });

  it("lets the repository's settings decide drafts and apps' PRs when the operator's ceilings allow, carrying what they need in the job", () => {
    const open = { ...filter, drafts: "repository" as const, botPullRequests: "repository" as const };
    const labels = [{ name: "no-review" }, { name: "bug" }];
    const draft = decideDelivery("pull_request", DELIVERY, pullRequest("synchronize", { draft: true, labels }), open);
    expect(draft).toMatchObject({ kind: "review", job: { pull: { draft: true, labels: ["no-review", "bug"], authorBot: false } } });
    const bot = decideDelivery("pull_request", DELIVERY, pullRequest("opened", { user: { login: "dependabot[bot]", type: "Bot" } }), open);
    expect(bot).toMatchObject({ kind: "review", job: { pull: { draft: false, authorBot: true } } });
    // A login the operator lists stays ignored whatever the repository says.
    const listed = decideDelivery("pull_request", DELIVERY, pullRequest("opened", { user: { login: "renovate-bot", type: "User" } }), open);
    expect(listed).toEqual({ kind: "ignore", reason: "bot_author" });
  });

  it("carries no PR state in a job a maintainer asked for (the settings never skip it)", () => {
    const decision = decideDelivery("pull_request_review_comment", DELIVERY, reviewComment(), filter);
    expect(decision.kind === "answer" && decision.job.pull).toBeUndefined();
  });

  it("answers a trusted person's reply in a review thread with a job naming the reply and its thread", () => {
    const decision = decideDelivery("pull_request_review_comment", DELIVERY, reviewComment(), filter);
    expect(decision).toMatchObject({
      kind: "answer",
      job: { pullNumber: 5, headSha: HEAD, trigger: "review_comment", reply: { commentId: 902, threadId: 901 }, deliveryId: DELIVERY },
    });
  });

  it.each([
    ["with a model", {}],
    ["without a model", { answers: false }],
  ])("takes a trusted person's `won't fix` reply as a dismissal of the thread's finding, never a question for the model (%s)", (_name, overrides) => {
    const payload = reviewComment({ comment: { body: "Won't fix: intended.\nThe caller clamps it." } });
    expect(decideDelivery("pull_request_review_comment", DELIVERY, payload, { ...filter, ...overrides })).toMatchObject({
      kind: "dismiss",
      job: { pullNumber: 5, reply: { commentId: 902, threadId: 901 }, deliveryId: DELIVERY },
    });
  });

  it.each([
    ["someone without a role", { author_association: "NONE" }, "author_not_trusted"],
    ["the PR's author", { author_association: "CONTRIBUTOR" }, "author_not_trusted"],
    ["an app that is a member", { user: { login: "other-app[bot]", type: "Bot" } }, "bot_author"],
  ])("does not take a `false positive` reply from %s", (_name, comment, reason) => {
    const payload = reviewComment({ comment: { body: "false positive", ...comment } });
    expect(decideDelivery("pull_request_review_comment", DELIVERY, payload, filter)).toEqual({ kind: "ignore", reason });
  });

  it.each([
    ["an edited comment", reviewComment({ action: "edited" }), {}, "action_not_handled"],
    ["a comment that opens a thread", reviewComment({ comment: { in_reply_to_id: undefined } }), {}, "not_a_reply"],
    ["a closed PR", reviewComment({ pull_request: { state: "closed" } }), {}, "closed"],
    ["an app (ourselves included)", reviewComment({ comment: { user: { login: "reviewbot[bot]", type: "Bot" } } }), {}, "bot_author"],
    ["a login the operator lists as a bot", reviewComment({ comment: { user: { login: "Renovate-Bot", type: "User" } } }), {}, "bot_author"],
    ["a contributor (the PR's author, say)", reviewComment({ comment: { author_association: "CONTRIBUTOR" } }), {}, "author_not_trusted"],
    ["someone without a role", reviewComment({ comment: { author_association: "NONE" } }), {}, "author_not_trusted"],
    ["a member when only owners may ask", reviewComment(), { commandAssociations: ["OWNER"] }, "author_not_trusted"],
    ["a trusted reply with no model configured", reviewComment(), { answers: false }, "answers_off"],
  ])("ignores %s", (_name, payload, overrides, reason) => {
    expect(decideDelivery("pull_request_review_comment", DELIVERY, payload, { ...filter, ...overrides })).toEqual({ kind: "ignore", reason });
  });

  it.each([
    ["a repository the payload says is public", false, false],
    ["a private repository", true, true],
    ["a payload that does not say (fail closed: private)", undefined, true],
  ])("%s: repositoryPrivate decides whether the model may fetch URLs", (_name, flag, expected) => {
    const payload = pullRequest("opened") as { repository: Record<string, unknown> };
    const decided = decideDelivery("pull_request", DELIVERY, { ...payload, repository: { ...payload.repository, private: flag } }, filter);
    expect(decided).toMatchObject({ kind: "review", job: { repositoryPrivate: expected } });
  });

  it("looks up the PR of a rerequested check run instead of trusting the head it names", () => {
    expect(decideDelivery("check_run", DELIVERY, checkRun({ pull_requests: [linkedPr] }), filter)).toEqual({
      kind: "resolve",
      task: { kind: "resolve", installationId: 7, repositoryId: 100, repository: "octo/hello", pullNumber: 9, deliveryId: DELIVERY, trigger: "check_run" },
    });
  });

  it.each([
    ["a PR action the operator left out", "pull_request", pullRequest("synchronize"), { pullRequestActions: ["opened"] }, "action_not_handled"],
    ["a member when only owners may ask", "issue_comment", comment("/review"), { commandAssociations: ["OWNER"] }, "author_not_trusted"],
  ])("ignores %s (the filter is configurable)", (_name, event, payload, narrowed, reason) => {
    expect(decideDelivery(event, DELIVERY, payload, { ...filter, ...narrowed })).toEqual({ kind: "ignore", reason });
  });

  it("builds the resolve task from a comment", () => {
    expect(decideDelivery("issue_comment", DELIVERY, comment("/review"), filter)).toEqual({
      kind: "resolve",
      task: { kind: "resolve", installationId: 7, repositoryId: 100, repository: "octo/hello", pullNumber: 5, deliveryId: DELIVERY, trigger: "issue_comment" },
    });
  });

  it.each([
    ["no installation", "pull_request", { ...(pullRequest("opened") as object), installation: undefined }, "installation"],
    ["a string PR number", "pull_request", pullRequest("opened", { number: "5" }), "pull_request.number"],
    ["a short head SHA", "pull_request", pullRequest("opened", { head: { sha: "abc", ref: "x" } }), "headSha"],
    ["a base ref with spaces", "pull_request", pullRequest("opened", { base: { sha: BASE, ref: "main; rm" } }), "baseRef"],
    ["no updated_at", "pull_request", pullRequest("opened", { updated_at: undefined }), "pull_request.updated_at"],
    ["an updated_at that is no time", "pull_request", pullRequest("opened", { updated_at: "yesterday" }), "pullUpdatedAt"],
    [
      "no default branch",
      "pull_request",
      { ...(pullRequest("opened") as object), repository: { id: 100, full_name: "octo/hello" } },
      "repository.default_branch",
    ],
    [
      "a repository name with a slash too many",
      "pull_request",
      { ...(pullRequest("opened") as object), repository: { id: 100, full_name: "a/b/c", default_branch: "main" } },
      "repository",
    ],
    [
      "a comment without an association",
      "issue_comment",
      { ...(comment("/review") as object), comment: { id: 903, body: "/review", user: { login: "a", type: "User" } } },
      "comment.author_association",
    ],
    ["a non-object payload", "pull_request", [], "(root)"],
  ])("rejects %s as WEBHOOK_MALFORMED naming the field", (_name, event, payload, field) => {
    expect(() => decideDelivery(event, DELIVERY, payload, filter)).toThrow(expect.objectContaining({ code: "WEBHOOK_MALFORMED", details: { field } }));
  });

  describe("commands `@<slug> <command>`", () => {
    const task = (command: string, comment: Record<string, unknown>) => ({
      kind: "command",
      task: { kind: "command", installationId: 7, repositoryId: 100, repository: "octo/hello", pullNumber: 5, deliveryId: DELIVERY, command, comment },
    });
    const byBot = (body: string, login: string) => ({ comment: { id: 903, body, author_association: "MEMBER", user: { login, type: "Bot" } } });

    it.each([
      ["@reviewbot review", "review"],
      ["@ReviewBot  Full   Review\nthe whole thing, please", "full review"],
      ["@reviewbot pause", "pause"],
      ["@reviewbot resume", "resume"],
      ["@reviewbot resolve", "resolve"],
      ["@reviewbot summary", "summary"],
      ["@reviewbot help", "help"],
      ["@reviewbot ignore", "help"],
    ])("a member's comment %j is the command %s, naming the comment", (body, command) => {
      expect(decideDelivery("issue_comment", DELIVERY, comment(body), filter)).toEqual(task(command, { on: "issue", id: 903 }));
    });

    it("a member's reply in a review thread is a command naming the reply and its thread, with or without a model", () => {
      const payload = reviewComment({ comment: { body: "@reviewbot resolve" } });
      const expected = task("resolve", { on: "thread", id: 902, threadId: 901 });
      expect(decideDelivery("pull_request_review_comment", DELIVERY, payload, filter)).toEqual(expected);
      expect(decideDelivery("pull_request_review_comment", DELIVERY, payload, { ...filter, answers: false })).toEqual(expected);
    });

    it.each([
      ["someone without a role", "issue_comment", comment("@reviewbot pause", "NONE"), "author_not_trusted"],
      ["the PR's author (a contributor)", "issue_comment", comment("@reviewbot pause", "CONTRIBUTOR"), "author_not_trusted"],
      ["another app, though a member", "issue_comment", comment("", "MEMBER", byBot("@reviewbot pause", "other[bot]")), "bot_author"],
      ["ourselves (our help reply quoting a command)", "issue_comment", comment("", "MEMBER", byBot("@reviewbot review", "reviewbot[bot]")), "bot_author"],
      ["the command not on the first line", "issue_comment", comment("thanks!\n@reviewbot pause"), "not_the_command"],
      ["another App's slug", "issue_comment", comment("@otherbot pause"), "not_the_command"],
      ["a slug that only starts with ours", "issue_comment", comment("@reviewbot-dev pause"), "not_the_command"],
      [
        "a contributor's reply in a thread",
        "pull_request_review_comment",
        reviewComment({ comment: { body: "@reviewbot resolve", author_association: "NONE" } }),
        "author_not_trusted",
      ],
      [
        "an app's reply in a thread",
        "pull_request_review_comment",
        reviewComment({ comment: { body: "@reviewbot resolve", user: { login: "x[bot]", type: "Bot" } } }),
        "bot_author",
      ],
    ])("ignores %s", (_name, event, payload, reason) => {
      expect(decideDelivery(event, DELIVERY, payload, filter)).toEqual({ kind: "ignore", reason });
    });

    it("knows no command without the App's slug (no App): only `/review`", () => {
      expect(decideDelivery("issue_comment", DELIVERY, comment("@reviewbot pause"), { ...filter, appSlug: null })).toEqual({
        kind: "ignore",
        reason: "not_the_command",
      });
      expect(decideDelivery("issue_comment", DELIVERY, comment("/review"), { ...filter, appSlug: null })).toMatchObject({ kind: "resolve" });
    });

    it("never reads a command from the PR's description: a PR event is a review, whatever its body says", () => {
      const decision = decideDelivery("pull_request", DELIVERY, pullRequest("opened", { body: "@reviewbot ignore\n@reviewbot pause" }), filter);
      expect(decision).toMatchObject({ kind: "review", job: { trigger: "pull_request" } });
    });
  });
});
