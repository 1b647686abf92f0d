import { describe, expect, it } from "vitest";
import { threadVerdict, type ReviewThread } from "./thread-verdict.js";

const OURS = 7;
const isOurs = (id: number): boolean => id === OURS;

const thread = (patch: { isResolved?: boolean; isOutdated?: boolean; totalCount?: number; first?: number | null | "none" }): ReviewThread => ({
  id: "PRRT_1",
  isResolved: patch.isResolved ?? false,
  isOutdated: patch.isOutdated ?? true,
  comments: {
    totalCount: patch.totalCount ?? 1,
    nodes: patch.first === "none" ? [] : [{ databaseId: patch.first === undefined ? OURS : patch.first }],
  },
});

describe("threadVerdict", () => {
  it.each([
    ["ours, outdated, open, unanswered", {}, "resolve"],
    ["ours, current", { isOutdated: false }, "keep"],
    ["ours, outdated, with a reply", { totalCount: 2 }, "keep"],
    ["ours, current, with a reply", { isOutdated: false, totalCount: 3 }, "keep"],
    ["ours, already resolved", { isResolved: true }, "skip"],
    ["someone else's, outdated, unanswered", { first: 8 }, "skip"],
    ["first comment without a database id", { first: null }, "skip"],
    ["no first comment listed", { first: "none", totalCount: 0 }, "skip"],
  ] as const)("%s → %s", (_name, patch, expected) => {
    expect(threadVerdict(thread(patch), isOurs)).toBe(expected);
  });

  it.each([
    ["ours, current, with a reply", { isOutdated: false, totalCount: 3 }, "resolve"],
    ["ours, outdated, unanswered", {}, "resolve"],
    ["ours, already resolved", { isResolved: true }, "skip"],
    ["someone else's, open", { first: 8, isOutdated: false }, "skip"],
  ] as const)("for the resolve command: %s → %s", (_name, patch, expected) => {
    expect(threadVerdict(thread(patch), isOurs, "open")).toBe(expected);
  });
});
