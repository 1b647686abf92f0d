import { describe, expect, it } from "vitest";
import { decideActionEvent } from "./action-event.js";

const SHA = "a".repeat(40);
const comment = (body: string | null, association = "MEMBER", more: Record<string, unknown> = {}) => ({
  action: "created",
  issue: { number: 7, pull_request: { url: "https://api.github.com/repos/octo/widgets/pulls/7" } },
  comment: { body, author_association: association, user: { login: "maintainer", type: "User" } },
  ...more,
});

describe("decideActionEvent", () => {
  it.each(["pull_request", "pull_request_target"])("%s: reviews the PR at the event's head", (name) => {
    expect(decideActionEvent(name, { action: "opened", pull_request: { number: 7, head: { sha: SHA } } }, undefined)).toEqual({
      kind: "review",
      event: name,
      pullNumber: 7,
      headSha: SHA,
    });
  });

  it("workflow_dispatch: reviews the PR the input names, its head asked of the API", () => {
    expect(decideActionEvent("workflow_dispatch", { inputs: {} }, 12)).toEqual({ kind: "review", event: "workflow_dispatch", pullNumber: 12 });
    expect(decideActionEvent("workflow_dispatch", { inputs: {} }, undefined).kind).toBe("skip");
  });

  it.each([
    ["the command, then more lines", comment("/review\nplease"), "review"],
    ["the command with spaces and CRLF", comment("  /review  \r\nthanks"), "review"],
    ["an OWNER", comment("/review", "OWNER"), "review"],
    ["a COLLABORATOR", comment("/review", "COLLABORATOR"), "review"],
    ["a CONTRIBUTOR (a PR author)", comment("/review", "CONTRIBUTOR"), "skip"],
    ["NONE", comment("/review", "NONE"), "skip"],
    ["an app", { ...comment("/review"), comment: { body: "/review", author_association: "MEMBER", user: { type: "Bot" } } }, "skip"],
    ["the command not on the first line", comment("hello\n/review"), "skip"],
    ["a longer first line", comment("/review now"), "skip"],
    ["an empty body", comment(null), "skip"],
    ["an edit", comment("/review", "MEMBER", { action: "edited" }), "skip"],
    ["an issue, not a PR", { ...comment("/review"), issue: { number: 7 } }, "skip"],
  ])("issue_comment, %s: %s", (_label, payload, kind) => {
    const decision = decideActionEvent("issue_comment", payload, undefined);
    expect(decision.kind).toBe(kind);
    if (decision.kind === "review") expect(decision).toEqual({ kind: "review", event: "issue_comment", pullNumber: 7 });
  });

  it.each([
    ["push", { ref: "refs/heads/main" }],
    ["schedule", {}],
    [undefined, undefined],
    ["pull_request", { pull_request: { number: 7, head: { sha: "not-a-sha" } } }],
    ["pull_request", { pull_request: { number: -1, head: { sha: SHA } } }],
    ["issue_comment", "not an object"],
  ])("%s with a payload it cannot use: skipped with a reason", (name, payload) => {
    const decision = decideActionEvent(name, payload, undefined);
    expect(decision.kind).toBe("skip");
    if (decision.kind === "skip") expect(decision.reason).not.toBe("");
  });

  it("never echoes a commenter's text in its reason (it is printed to the runner's log)", () => {
    const decision = decideActionEvent("issue_comment", comment("/review", "NONE\n::set-env name=X::1"), undefined);
    expect(decision).toEqual({ kind: "skip", reason: "the command's author is not an owner, member or collaborator" });
  });
});
