import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMAND_ASSOCIATIONS, decideDelivery, PULL_REQUEST_ACTIONS, type DeliveryFilter } from "./decide-delivery.js";

// GitHub's own example deliveries (octokit/webhooks, fixtures/octokit-webhooks/SOURCES.md): the
// event filter must read what GitHub really sends, not only the payloads our tests write.
const read = (file: string): unknown => JSON.parse(readFileSync(new URL(`./fixtures/octokit-webhooks/${file}`, import.meta.url), "utf8"));
const filter: DeliveryFilter = {
  botLogins: [],
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
const DELIVERY = "72d3162e-cc78-11e3-81ab-4c9367dc0958";

describe("decideDelivery on GitHub's example payloads", () => {
  it.each([
    ["pull_request", "pull_request.synchronize.payload.json", { updatedAt: "2019-05-15T15:20:33Z" }],
    ["pull_request", "pull_request.ready_for_review.with-installation.payload.json", { updatedAt: "2019-05-15T15:21:18Z" }],
  ])("%s %s becomes a review of its head, with the default branch and updated_at", (event, file, expected) => {
    const decision = decideDelivery(event, DELIVERY, read(file), filter);
    expect(decision).toMatchObject({
      kind: "review",
      job: {
        installationId: 1,
        repositoryId: 186853002,
        repository: "Codertocat/Hello-World",
        pullNumber: 2,
        headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        baseSha: "f95f852bd8fca8fcc58a9a2d6c842781e32a215e",
        baseRef: "master",
        defaultBranch: "master",
        pullUpdatedAt: expected.updatedAt,
        deliveryId: DELIVERY,
      },
    });
  });

  it.each([
    ["pull_request", "pull_request.converted_to_draft.with-installation.payload.json", "action_not_handled"],
    ["issue_comment", "issue_comment.created.with-installation.payload.json", "not_a_pull_request"],
    ["check_run", "check_run.rerequested.payload.json", "not_our_check_run"],
    ["projects_v2_item", "projects_v2_item.edited.payload.json", "event_not_handled"],
  ])("%s %s is ignored as %s, not refused as malformed", (event, file, reason) => {
    expect(decideDelivery(event, DELIVERY, read(file), filter)).toEqual({ kind: "ignore", reason });
  });
});
