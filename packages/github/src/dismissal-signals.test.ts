import { describe, expect, it } from "vitest";
import { dismissalSignals, type DismissalThread } from "./dismissal-signals.js";

const OURS = 7;
const TRUSTED = ["OWNER", "MEMBER", "COLLABORATOR"];
type Comment = DismissalThread["comments"]["nodes"][number];

const ours: Comment = {
  databaseId: OURS,
  authorAssociation: "NONE",
  author: { __typename: "Bot", login: "reviewbot" },
  body: "A finding.",
  reactions: { nodes: [] },
};
const replyBy = (login: string, authorAssociation: string, body: string, typename = "User"): Comment => ({
  databaseId: 8,
  authorAssociation,
  author: { __typename: typename, login },
  body,
  reactions: { nodes: [] },
});
const thread = (patch: Partial<DismissalThread> & { first?: Partial<Comment>; replies?: Comment[] } = {}): DismissalThread => ({
  isResolved: patch.isResolved ?? false,
  resolvedBy: patch.resolvedBy ?? null,
  comments: { nodes: [{ ...ours, ...patch.first }, ...(patch.replies ?? [])] },
});
const signals = (of: DismissalThread) => dismissalSignals(of, (id) => id === OURS, TRUSTED);

describe("dismissalSignals", () => {
  it.each([
    ["a member's `won't fix` reply", thread({ replies: [replyBy("maint", "MEMBER", "won't fix")] }), { dismissed: true, askTrustOf: [] }],
    [
      "an owner's `false positive` after a question",
      thread({ replies: [replyBy("q", "NONE", "why?"), replyBy("o", "OWNER", "False positive.")] }),
      { dismissed: true, askTrustOf: [] },
    ],
    ["a stranger's `won't fix`", thread({ replies: [replyBy("x", "NONE", "won't fix")] }), { dismissed: false, askTrustOf: [] }],
    ["an app's `won't fix`, though a member", thread({ replies: [replyBy("other-app", "MEMBER", "won't fix", "Bot")] }), { dismissed: false, askTrustOf: [] }],
    ["a member's question", thread({ replies: [replyBy("maint", "MEMBER", "false positive?")] }), { dismissed: false, askTrustOf: [] }],
    ["a resolution: the resolver's trust is asked", thread({ isResolved: true, resolvedBy: { login: "maint" } }), { dismissed: false, askTrustOf: ["maint"] }],
    ["a resolution by an App (no User)", thread({ isResolved: true, resolvedBy: null }), { dismissed: false, askTrustOf: [] }],
    [
      "👎 reactors on our comment, once each, apps left out",
      thread({ first: { reactions: { nodes: [{ user: { login: "a" } }, { user: null }, { user: { login: "a" } }, { user: { login: "x[bot]" } }] } } }),
      { dismissed: false, askTrustOf: ["a"] },
    ],
  ])("%s", (_name, of, expected) => {
    expect(signals(of)).toEqual({ commentId: OURS, ...expected });
  });

  it("ignores a thread that no comment of ours opened, whatever is said in it", () => {
    const theirs = thread({ first: { databaseId: 99 }, isResolved: true, resolvedBy: { login: "maint" }, replies: [replyBy("maint", "MEMBER", "won't fix")] });
    expect(signals(theirs)).toBeNull();
    expect(signals(thread({ first: { databaseId: null } }))).toBeNull();
  });

  it("ignores 👎 on a reply: only a reaction to our comment dismisses", () => {
    const reply = { ...replyBy("q", "NONE", "hm"), reactions: { nodes: [{ user: { login: "maint" } }] } };
    expect(signals(thread({ replies: [reply] }))).toEqual({ commentId: OURS, dismissed: false, askTrustOf: [] });
  });
});
