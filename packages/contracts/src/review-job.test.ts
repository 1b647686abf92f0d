import { describe, expect, it } from "vitest";
import { parseReviewJob, type ReviewJob } from "./review-job.js";

const valid: ReviewJob = {
  installationId: 7,
  repositoryId: 42,
  repository: "octo-org/hello.world",
  pullNumber: 3,
  headSha: "a".repeat(40),
  baseSha: "b".repeat(40),
  baseRef: "main",
  defaultBranch: "main",
  repositoryPrivate: false,
  pullUpdatedAt: "2024-05-06T07:08:09Z",
  headFrom: "event",
  deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
  trigger: "pull_request",
  reply: null,
};

describe("parseReviewJob", () => {
  it("accepts a job of identifiers", () => {
    expect(parseReviewJob(valid)).toEqual(valid);
  });

  it("takes a job that does not say whether its repository is private as private (fetch_url stays off)", () => {
    const unsaid: Partial<ReviewJob> = { ...valid };
    delete unsaid.repositoryPrivate;
    expect(parseReviewJob(unsaid)).toEqual({ ...valid, repositoryPrivate: true });
  });

  it.each([
    ["a token smuggled in an extra key", { ...valid, token: "ghs_x" }, /review job \(root\): /],
    ["a short head SHA", { ...valid, headSha: "abc" }, /review job headSha: must be a 40-character/],
    ["an upper-case SHA", { ...valid, baseSha: "B".repeat(40) }, /review job baseSha/],
    ["a URL instead of owner/name", { ...valid, repository: "https://evil/x" }, /review job repository: must be owner\/name/],
    ["path traversal in the name", { ...valid, repository: "../../etc" }, /review job repository/],
    ["a repository named ..", { ...valid, repository: "octo/.." }, /review job repository: must not name/],
    ["a repository named .", { ...valid, repository: "octo/." }, /review job repository: must not name/],
    ["a base ref with a space", { ...valid, baseRef: "main --upload-pack=x" }, /review job baseRef/],
    ["a default branch with a space", { ...valid, defaultBranch: "main --upload-pack=x" }, /review job defaultBranch/],
    ["no default branch", { ...valid, defaultBranch: undefined }, /review job defaultBranch/],
    ["an updated_at that is no time", { ...valid, pullUpdatedAt: "2024-05-06" }, /review job pullUpdatedAt/],
    ["an unknown head source", { ...valid, headFrom: "worker" }, /review job headFrom/],
    ["a zero installation", { ...valid, installationId: 0 }, /review job installationId/],
    ["a string PR number", { ...valid, pullNumber: "3" }, /review job pullNumber/],
    ["an unknown trigger", { ...valid, trigger: "push" }, /review job trigger/],
    ["a delivery id with a colon", { ...valid, deliveryId: "a:b" }, /review job deliveryId/],
    ["not an object", "job", /review job \(root\)/],
  ])("refuses %s with JOB_INVALID naming the field", (_name, data, message) => {
    expect(() => parseReviewJob(data)).toThrow(message);
    expect(() => parseReviewJob(data)).toThrow(expect.objectContaining({ code: "JOB_INVALID", retryable: false }));
  });
});
