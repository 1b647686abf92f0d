import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helperEntry } from "../support/review-repos.js";
import { INSTALLATION_ID, startFleet, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, pushToPull, type HostedPull } from "./hosted-pull.js";
import { checkRunOf, waitForCompletedCheckRun } from "./check-runs.js";

// The maintainers' `.ai/review-config.json` on the default branch, through the real api, worker,
// Redis and the GitHub stand-in: a typo is reported by name and its default used, drafts and skip
// labels skip an automatic review (a `skipped` check run naming why, no helper run), a low finding
// stays out of the PR review but in the annotations, and a PR's own copy of the file changes nothing.

const TYPO = "octo/typo";
const DRAFTS = "octo/drafts";
const ATTACK = "octo/attack";
const IDS = { [TYPO]: 9301, [DRAFTS]: 9302, [ATTACK]: 9303 };
const SKIP_LABEL = "no-review";

// One warning and one note (below the settings' minInlineSeverity) on lines the PR adds.
const helper = helperEntry("levels", ["printf", "%s\\n", "src/lib.ts:1:1: warning: loud finding", "src/lib.ts:2:1: note: quiet finding"], {
  format: "errorformat",
});
const source = (tree: { write(path: string, content: string): void }, version: string): void => {
  tree.write("src/lib.ts", `export const a = "${version}";\nexport const b = 2;\n`);
};

let fleet: Fleet;
let typo: HostedPull;
let drafts: HostedPull;
let attack: HostedPull;

const reviewsOf = (pull: HostedPull): string => JSON.stringify(fleet.github.state.reviews.get(`${pull.repository}#${pull.number}`) ?? []);

describe("the maintainers' settings in the trusted .ai/review-config.json", () => {
  beforeAll(async () => {
    fleet = await startFleet({ repositories: IDS, engine: "bwrap" });
    typo = hostPull(fleet, {
      repository: TYPO,
      repositoryId: IDS[TYPO],
      number: 1,
      helpers: [helper],
      // `reviewDraft` is a typo of `reviewDrafts`: it must not turn drafts on.
      settings: JSON.stringify({ reviewDraft: true, minInlineSeverity: "warning", skipLabels: [SKIP_LABEL] }),
      fork: (tree) => {
        source(tree, "one");
      },
    });
    drafts = hostPull(fleet, {
      repository: DRAFTS,
      repositoryId: IDS[DRAFTS],
      number: 2,
      helpers: [helper],
      settings: JSON.stringify({ reviewDrafts: true }),
      fork: (tree) => {
        source(tree, "one");
      },
    });
    attack = hostPull(fleet, {
      repository: ATTACK,
      repositoryId: IDS[ATTACK],
      number: 3,
      helpers: [helper],
      settings: JSON.stringify({ minInlineSeverity: "error" }),
      // The PR's own settings would review drafts, skip nothing and put every finding inline.
      fork: (tree) => {
        source(tree, "one");
        tree.write(".ai/review-config.json", JSON.stringify({ reviewDrafts: true, minInlineSeverity: "notice", skipLabels: [] }));
      },
    });
  }, 180_000);

  afterAll(async () => {
    await (fleet as Fleet | undefined)?.stop();
  });

  it("reports a typo by name on the PR and reviews with the defaults; a finding under minInlineSeverity stays in the annotations only", async () => {
    expect((await fleet.deliver("pull_request", pullRequestEvent(typo, "opened"))).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, typo.headSha);
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toMatch(/^Configuration error/);
    expect(run.output.summary).toMatch(/### Configuration errors\n- reviewDraft\\?: unknown key/);
    // The rest of the file holds: both findings are annotations…
    expect(run.annotations.map((annotation) => annotation.message).sort()).toEqual(["loud finding", "quiet finding"]);
    // …and only the warning became an inline comment.
    await expect.poll(() => reviewsOf(typo), { timeout: 10_000 }).toContain("loud finding");
    expect(reviewsOf(typo)).not.toContain("quiet finding");
  }, 180_000);

  it("skips a draft (the typo did not turn drafts on): a skipped check run naming why, no helper run, no review", async () => {
    pushToPull(fleet, typo, (tree) => {
      source(tree, "two");
    });
    const reviewsBefore = reviewsOf(typo);
    expect((await fleet.deliver("pull_request", pullRequestEvent(typo, "synchronize", { draft: true }))).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, typo.headSha);
    expect(run).toMatchObject({ conclusion: "skipped", output: { title: "Review skipped: draft pull request" } });
    expect(run.output.summary).toContain("`reviewDrafts`");
    // The broken key is still reported on the skipped run.
    expect(run.output.summary).toMatch(/reviewDraft\\?: unknown key/);
    expect(run.annotations).toEqual([]);
    expect(reviewsOf(typo)).toBe(reviewsBefore);
  }, 180_000);

  it("skips a PR carrying a skip label, compared ignoring case", async () => {
    pushToPull(fleet, typo, (tree) => {
      source(tree, "three");
    });
    expect((await fleet.deliver("pull_request", pullRequestEvent(typo, "synchronize", { labels: ["bug", "No-Review"] }))).status).toBe(202);
    const skipped = await waitForCompletedCheckRun(fleet, typo.headSha);
    expect(skipped).toMatchObject({ conclusion: "skipped", output: { title: "Review skipped: skip label" } });
    expect(skipped.output.summary).toContain("`No-Review`");
    expect(skipped.annotations).toEqual([]);
  }, 180_000);

  it("reviews a draft where the settings allow it (negative control)", async () => {
    expect((await fleet.deliver("pull_request", pullRequestEvent(drafts, "opened", { draft: true }))).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, drafts.headSha);
    expect(run.conclusion).not.toBe("skipped");
    expect(run.annotations).toHaveLength(2);
    // No minInlineSeverity here: both findings go inline.
    await expect.poll(() => reviewsOf(drafts), { timeout: 10_000 }).toContain("quiet finding");
    expect(reviewsOf(drafts)).toContain("loud finding");
  }, 180_000);

  it("ignores a PR's own .ai/review-config.json: its draft is skipped and its floor is the default branch's", async () => {
    expect((await fleet.deliver("pull_request", pullRequestEvent(attack, "opened", { draft: true }))).status).toBe(202);
    const skipped = await waitForCompletedCheckRun(fleet, attack.headSha);
    expect(skipped).toMatchObject({ conclusion: "skipped", output: { title: "Review skipped: draft pull request" } });
    // Ready for review on a new head: reviewed, and no finding under the base's `error` floor goes inline.
    pushToPull(fleet, attack, (tree) => {
      source(tree, "two");
    });
    expect((await fleet.deliver("pull_request", pullRequestEvent(attack, "ready_for_review"))).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, attack.headSha);
    expect(run.annotations).toHaveLength(2);
    expect(run.output.summary).toContain("change(s) this PR made under `.ai/` were ignored");
    // Give the publisher time to post a review if it were going to.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(reviewsOf(attack)).not.toContain("finding");
  }, 180_000);

  it("reviews a draft when a maintainer asks with the command: the settings govern automatic reviews only", async () => {
    pushToPull(fleet, typo, (tree) => {
      source(tree, "four");
    });
    const hosted = fleet.github.state.pulls.get(`${TYPO}#1`);
    if (hosted === undefined) throw new Error("the PR is not hosted");
    fleet.github.setPullRequest(TYPO, { ...hosted, draft: true });
    const command = {
      action: "created",
      installation: { id: INSTALLATION_ID },
      repository: { id: IDS[TYPO], full_name: TYPO },
      issue: { number: typo.number, state: "open", pull_request: { url: `https://api.github.com/repos/${TYPO}/pulls/1` } },
      comment: { id: 5151, body: "/review", author_association: "MEMBER", user: { login: "maintainer", type: "User" } },
    };
    expect((await fleet.deliver("issue_comment", command)).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, typo.headSha);
    expect(run.conclusion).not.toBe("skipped");
    expect(run.annotations).toHaveLength(2);
    expect(checkRunOf(fleet, typo.headSha)?.output.title).toMatch(/^Configuration error/);
  }, 180_000);
});
