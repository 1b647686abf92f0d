import { isAppError } from "@reviewbot/core/errors";
import { REDACTED } from "@reviewbot/core/scrubber";
import { mintRepositoryToken } from "@reviewbot/github/mint-repository-token";
import { resolvePullRequest } from "@reviewbot/github/resolve-pull-request";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateTestAppKey } from "../support/github-stand-in.js";
import { INSTALLATION_ID, OTHER_REPOSITORY, REPOSITORY, REPOSITORY_ID, startGitHubHarness, type GitHubHarness } from "../support/github-stand-in-harness.js";

const HEAD = "1".repeat(40);
const BASE = "2".repeat(40);
let harness: GitHubHarness;

beforeAll(async () => {
  harness = await startGitHubHarness();
  harness.standIn.setPullRequest(REPOSITORY, {
    number: 5,
    headSha: HEAD,
    baseSha: BASE,
    baseRef: "release/1",
    defaultBranch: "trunk",
    updatedAt: "2024-05-06T07:08:09Z",
  });
  harness.standIn.setPullRequest(REPOSITORY, { number: 6, headSha: HEAD, baseSha: BASE, baseRef: "main", draft: true });
  harness.standIn.setPullRequest(REPOSITORY, { number: 7, headSha: HEAD, baseSha: BASE, baseRef: "main", state: "closed" });
  harness.standIn.setPullRequest(REPOSITORY, { number: 8, headSha: HEAD, baseSha: BASE, baseRef: "main", repositoryPrivate: false });
  harness.standIn.setPullRequest(REPOSITORY, { number: 9, headSha: HEAD, baseSha: BASE, baseRef: "main", repositoryPrivate: true });
});
afterAll(async () => {
  await harness.stop();
});
beforeEach(async () => {
  await harness.localRedis.command("FLUSHALL");
  harness.standIn.requests.length = 0;
  harness.standIn.minted.length = 0;
});

const pull = (pullNumber: number) => ({
  kind: "resolve" as const,
  installationId: INSTALLATION_ID,
  repositoryId: REPOSITORY_ID,
  repository: REPOSITORY,
  pullNumber,
  deliveryId: "d-1",
  trigger: "issue_comment" as const,
});

describe("installation tokens", () => {
  it("are cached in Redis, sealed, and reused by a second App process", async () => {
    const first = harness.process();
    const second = harness.process();
    const octokitA = await first.app.getInstallationOctokit(INSTALLATION_ID);
    const octokitB = await second.app.getInstallationOctokit(INSTALLATION_ID);
    await resolvePullRequest(octokitA, pull(5), { reviewDrafts: false });
    await resolvePullRequest(octokitB, pull(5), { reviewDrafts: false });
    await resolvePullRequest(octokitB, pull(5), { reviewDrafts: false });

    expect(harness.standIn.minted).toHaveLength(1);
    const token = harness.standIn.minted[0]?.token ?? "";
    // Both processes sent the same token.
    const auth = harness.standIn.calls("GET").map((r) => r.authorization);
    expect(new Set(auth)).toEqual(new Set([`token ${token}`]));
    // Redis holds it sealed, expiring a few minutes before the token does.
    const keys = (await harness.localRedis.command("KEYS", "reviewbot:token-cache:*")).split("\n");
    expect(keys).toHaveLength(1);
    const stored = await harness.localRedis.command("GET", keys[0] ?? "");
    expect(stored).not.toContain(token);
    const ttl = Number(await harness.localRedis.command("PTTL", keys[0] ?? ""));
    expect(ttl).toBeGreaterThan(50 * 60_000);
    expect(ttl).toBeLessThanOrEqual(55 * 60_000);
    // Registered with both processes' scrubbers: the one that minted it and the one that read it.
    expect(first.scrubber.scrub(`x ${token} y`)).toBe(`x ${REDACTED} y`);
    expect(second.scrubber.scrub(`x ${token} y`)).toBe(`x ${REDACTED} y`);
  });

  it("is not usable from a cache entry sealed under another App key", async () => {
    await harness
      .process()
      .app.getInstallationOctokit(INSTALLATION_ID)
      .then((o) => resolvePullRequest(o, pull(5), { reviewDrafts: false }));
    const key = generateTestAppKey();
    const stranger = harness.process({ privateKey: key.privateKey });
    // The stranger cannot open the sealed entry, so it mints with its own (wrong) key: refused.
    const octokit = await stranger.app.getInstallationOctokit(INSTALLATION_ID);
    await expect(resolvePullRequest(octokit, pull(5), { reviewDrafts: false })).rejects.toMatchObject({ code: "GITHUB_API_FAILED" });
    expect(harness.standIn.requests.filter((r) => r.path.endsWith("/access_tokens")).map((r) => r.status)).toEqual([201, 401]);
  });

  it("counts every request through onRequest", async () => {
    const process = harness.process();
    await resolvePullRequest(await process.app.getInstallationOctokit(INSTALLATION_ID), pull(5), { reviewDrafts: false });
    expect(process.requests).toEqual([
      { route: "POST /app/installations/{installation_id}/access_tokens", status: 201 },
      { route: "GET /repos/{owner}/{repo}/pulls/{pull_number}", status: 200 },
    ]);
  });
});

describe("mintRepositoryToken", () => {
  it("asks for one repository with read permissions, and the token can do nothing else", async () => {
    const process = harness.process();
    const { token, expiresAt } = await mintRepositoryToken(process.app, INSTALLATION_ID, REPOSITORY_ID);
    const request = harness.standIn.requests.find((r) => r.path === `/app/installations/${INSTALLATION_ID}/access_tokens`);
    expect(request?.body).toEqual({
      repository_ids: [REPOSITORY_ID],
      permissions: { contents: "read", pull_requests: "read", metadata: "read" },
    });
    expect(request?.authorization).toMatch(/^bearer /i);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());

    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${harness.standIn.url}${path}`, {
        method,
        headers: { authorization: `token ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then((r) => r.status);
    expect(await call("GET", `/repos/${REPOSITORY}/pulls/5`)).toBe(200);
    expect(await call("POST", `/repos/${REPOSITORY}/check-runs`, { name: "x", head_sha: HEAD })).toBe(403);
    expect(await call("GET", `/repos/${OTHER_REPOSITORY}/pulls/5`)).toBe(404);
  });

  it("mints a fresh token per call", async () => {
    const process = harness.process();
    const a = await mintRepositoryToken(process.app, INSTALLATION_ID, REPOSITORY_ID);
    const b = await mintRepositoryToken(process.app, INSTALLATION_ID, REPOSITORY_ID);
    expect(a.token).not.toBe(b.token);
  });

  it("mints a token of its own for each of several concurrent calls (each job's token dies with that job alone)", async () => {
    const process = harness.process();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => mintRepositoryToken(process.app, INSTALLATION_ID, REPOSITORY_ID)));
    expect(new Set(tokens.map((minted) => minted.token)).size).toBe(8);
    expect(harness.standIn.minted).toHaveLength(8);
    // Never in the shared installation-token cache, where another caller could be handed it.
    expect(await harness.localRedis.command("KEYS", "reviewbot:token-cache:*")).toBe("");
  });

  it.each([
    ["a body without a token", { expires_at: "2099-01-01T00:00:00Z", permissions: { contents: "read" }, repositories: [{ id: REPOSITORY_ID }] }],
    [
      "a token wider than asked",
      { token: "ghs_wide", expires_at: "2099-01-01T00:00:00Z", permissions: { contents: "write" }, repositories: [{ id: REPOSITORY_ID }] },
    ],
    ["a token for every repository", { token: "ghs_all", expires_at: "2099-01-01T00:00:00Z", permissions: { contents: "read" } }],
  ])("fails closed with GITHUB_API_FAILED on %s", async (_name, body) => {
    harness.standIn.fail("POST", /\/access_tokens$/, 1, { status: 201, body });
    const error: unknown = await mintRepositoryToken(harness.process().app, INSTALLATION_ID, REPOSITORY_ID).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe("GITHUB_API_FAILED");
    // The control: the same call with GitHub's own answer mints.
    expect((await mintRepositoryToken(harness.process().app, INSTALLATION_ID, REPOSITORY_ID)).token).toMatch(/^ghs_/);
  });

  it("fails closed with GITHUB_API_FAILED when GitHub refuses", async () => {
    const stranger = harness.process({ privateKey: generateTestAppKey().privateKey });
    const error: unknown = await mintRepositoryToken(stranger.app, INSTALLATION_ID, REPOSITORY_ID).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe("GITHUB_API_FAILED");
  });
});

describe("resolvePullRequest", () => {
  it.each([
    // GitHub not saying whether the repository is private: private (the model's fetch_url stays off).
    [
      5,
      {
        headSha: HEAD,
        baseSha: BASE,
        baseRef: "release/1",
        defaultBranch: "trunk",
        pullUpdatedAt: "2024-05-06T07:08:09Z",
        headFrom: "api",
        pullNumber: 5,
        trigger: "issue_comment",
        repositoryPrivate: true,
      },
    ],
    [8, { pullNumber: 8, repositoryPrivate: false }],
    [9, { pullNumber: 9, repositoryPrivate: true }],
    [6, null],
    [7, null],
    [404, null],
  ])("PR %s", async (number, expected) => {
    const octokit = await harness.process().app.getInstallationOctokit(INSTALLATION_ID);
    const job = await resolvePullRequest(octokit, pull(number), { reviewDrafts: false });
    if (expected === null) expect(job).toBeNull();
    else expect(job).toMatchObject(expected);
  });

  it("resolves a draft for a maintainer's request unless the operator never reviews drafts", async () => {
    const octokit = await harness.process().app.getInstallationOctokit(INSTALLATION_ID);
    expect(await resolvePullRequest(octokit, pull(6), { reviewDrafts: true })).toMatchObject({ pullNumber: 6, headFrom: "api" });
    expect(await resolvePullRequest(octokit, pull(6), { reviewDrafts: false })).toBeNull();
  });
});
