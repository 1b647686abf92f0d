import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishResults, type ActionTarget } from "@reviewbot/action/publish/publish-results";
import { aiReportOff } from "@reviewbot/contracts/ai-report";
import type { Severity } from "@reviewbot/contracts/severity";
import { fingerprintMarker, fingerprintOf } from "@reviewbot/github/finding-fingerprint";
import type { Report } from "@reviewbot/review/pipeline/report";
import { toPublishedReport } from "@reviewbot/review/pipeline/to-published-report";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { ACTIONS_BOT, issueWorkflowToken } from "../support/github-stand-in-token-permissions.js";
import { silentLogger } from "../support/review-fixture.js";

type AnchoredFinding = Report["findings"][number];

const REPO = "octo/app";
const [HEAD_1, HEAD_2, BASE] = ["1".repeat(40), "2".repeat(40), "b".repeat(40)];
const HUNKS = { "src/a.ts": [{ start: 1, end: 40 }] };

const finding = (line: number, severity: Severity, rule: string, anchor: string | null): AnchoredFinding => ({
  path: "src/a.ts",
  line,
  endLine: null,
  column: null,
  severity,
  message: `${rule} at ${line}\n::error::forged`,
  rule,
  helper: "lint",
  anchor,
});
const anchor = (n: number): string => n.toString(16).padStart(16, "0");

function reportOf(headSha: string, findings: readonly AnchoredFinding[]): Report {
  return {
    repo: REPO,
    base: { ref: "main", sha: BASE },
    head: { ref: "feature", sha: headSha },
    engine: "bwrap",
    sandboxed: true,
    overlay: { source: "ref", failedClosed: false, reason: null, commit: { from: "ref", ref: "main", sha: BASE }, ignoredPrChanges: [] },
    context: null,
    config: { errors: [], minInlineSeverity: "notice" },
    skipped: null,
    helpers: [
      {
        name: "lint",
        image: "reviewbot/lint",
        engine: "bwrap",
        sandboxed: true,
        outcome: "findings",
        exitCode: 1,
        signal: null,
        timedOut: false,
        oomKilled: false,
        outputTruncated: false,
        durationMs: 5,
        stdout: "",
        stderr: "",
        findings,
        problems: [],
        install: null,
      },
    ],
    findings,
    filtered: { mode: "added", dropped: 0, skippedByContext: 0 },
    errors: [],
    hunks: HUNKS,
    timings: { checkoutMs: 0, contextMs: 0, helpersMs: 0, findingsMs: 0, aiMs: 0, totalMs: 0 },
    ai: aiReportOff(),
  };
}

// Twelve errors on the diff (more than the ten a step shows), one warning off every hunk.
const FIRST = [...Array.from({ length: 12 }, (_, i) => finding(i + 1, "error", `R${i + 1}`, anchor(i + 1))), finding(90, "warning", "W1", null)];

let standIn: GitHubStandIn;
let dir: string;

beforeAll(async () => {
  standIn = await startGitHubStandIn({ appId: 7, publicKey: generateTestAppKey().publicKey, repositories: { [REPO]: 70 } });
});
afterAll(async () => {
  await standIn.close();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "publish-"));
  standIn.state.checkRuns.clear();
  standIn.state.reviews.clear();
  standIn.state.reviewComments.clear();
  standIn.state.threads.clear();
  pull(HEAD_1);
  return () => rm(dir, { recursive: true, force: true });
});

function pull(headSha: string): void {
  standIn.setPullRequest(REPO, { number: 5, headSha, baseSha: BASE, baseRef: "main", hunks: { "src/a.ts": [[1, 40]] } });
}

async function publish(
  token: string,
  report: Report,
): Promise<{ result: Awaited<ReturnType<typeof publishResults>>; lines: string[]; summary: string; output: string }> {
  const target: ActionTarget = {
    apiUrl: standIn.url,
    serverUrl: "http://git.invalid",
    token,
    owner: "octo",
    repo: "app",
    pullNumber: 5,
    headSha: report.head.sha,
    baseSha: BASE,
  };
  const files = { stepSummary: join(dir, "summary.md"), output: join(dir, "output"), sarif: join(dir, "out", "reviewbot.sarif") };
  const lines: string[] = [];
  const result = await publishResults(report, target, { failLevel: "error", files, logger: silentLogger(), write: (line) => lines.push(line) });
  return { result, lines, summary: await readFile(files.stepSummary, "utf8"), output: await readFile(files.output, "utf8") };
}

describe("publishResults: where the results go is what the token may do", () => {
  it("checks: write — one check run, its annotations in batches of 50, and no workflow commands", async () => {
    const many = Array.from({ length: 60 }, (_, i) => finding((i % 40) + 1, "warning", `M${i}`, null));
    const token = issueWorkflowToken(standIn, REPO, { checks: "write", contents: "read" });
    const { result, lines, summary, output } = await publish(token, reportOf(HEAD_1, [...FIRST, ...many]));
    const runs = [...standIn.state.checkRuns.values()];
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ head_sha: HEAD_1, status: "completed", conclusion: "failure" });
    expect(runs[0]?.annotations).toHaveLength(FIRST.length + many.length);
    expect(standIn.calls("PATCH", /\/check-runs\/\d+$/)).toHaveLength(1);
    expect(standIn.calls("POST", /\/pulls\/5\/reviews$/)).toHaveLength(0); // the PR's comments could not even be read: 403
    expect(lines).toEqual([]);
    expect(summary).toContain("Check run:");
    expect(output).toMatch(/^conclusion=failure\nfindings=73\nsarif-file=.*reviewbot\.sarif\n$/);
    expect(result).toEqual({ conclusion: "failure", findings: 73, exitCode: 1 });
    const sarif = JSON.parse(await readFile(join(dir, "out", "reviewbot.sarif"), "utf8")) as { runs: { results: unknown[] }[] };
    expect(sarif.runs[0]?.results).toHaveLength(73);
  });

  it("pull-requests: write — one review as github-actions[bot]; a second push repeats no comment; every finding is also a workflow command", async () => {
    const token = issueWorkflowToken(standIn, REPO, { pull_requests: "write", contents: "read" });
    const first = await publish(token, reportOf(HEAD_1, FIRST));
    expect(standIn.state.checkRuns.size).toBe(0);
    const [review] = standIn.state.reviews.get(`${REPO}#5`) ?? [];
    expect(review).toMatchObject({ event: "COMMENT", commit_id: HEAD_1, user: ACTIONS_BOT });
    expect(review?.comments).toHaveLength(12); // the warning off the diff has no place in a review
    // No check run here: the review says where every finding is instead (a check run it cannot name).
    expect(review?.body).toContain("this workflow run's annotations and step summary list every finding");
    expect(review?.body).not.toContain("check run");
    expect(first.lines).toHaveLength(11); // ten errors and the warning; two errors in the summary
    expect(first.summary).toContain("R11 at 11");

    pull(HEAD_2);
    const second = await publish(token, reportOf(HEAD_2, [...FIRST, finding(20, "error", "NEW", anchor(20))]));
    const reviews = standIn.state.reviews.get(`${REPO}#5`) ?? [];
    expect(reviews).toHaveLength(2);
    expect(reviews[1]?.comments.map((c) => String(c.body))).toEqual([expect.stringContaining("NEW at 20")]);
    expect(second.summary).toContain("12 finding(s) an earlier run commented on not repeated");
  });

  it("an impostor's marker — a PR author's comment, another App's bot — silences no finding", async () => {
    const token = issueWorkflowToken(standIn, REPO, { pull_requests: "write" });
    const report = reportOf(HEAD_1, FIRST.slice(0, 3));
    const [one, two, three] = toPublishedReport(report).findings.map((f) => fingerprintMarker(fingerprintOf(f) ?? ""));
    const at = { commitId: HEAD_1, path: "src/a.ts", line: 1 };
    standIn.startThread(REPO, 5, { login: "mallory", id: 666, type: "User", ...at, body: `looks fine\n\n${one ?? ""}` });
    standIn.startThread(REPO, 5, { login: "other-app[bot]", id: 667, type: "Bot", ...at, body: `noted\n\n${two ?? ""}` });
    // Our marker quoted mid-body by someone else: not at the end, so not a marker at all.
    standIn.startThread(REPO, 5, { login: "mallory", id: 666, type: "User", ...at, body: `${three ?? ""} quoted` });
    await publish(token, report);
    const ours = (standIn.state.reviews.get(`${REPO}#5`) ?? []).filter((r) => r.user.id === ACTIONS_BOT.id);
    expect(ours).toHaveLength(1);
    expect(ours[0]?.comments).toHaveLength(3);
  });

  it("negative control: our own earlier comment does silence its finding", async () => {
    const token = issueWorkflowToken(standIn, REPO, { pull_requests: "write" });
    const report = reportOf(HEAD_1, FIRST.slice(0, 3));
    const [one] = toPublishedReport(report).findings.map((f) => fingerprintMarker(fingerprintOf(f) ?? ""));
    standIn.startThread(REPO, 5, { ...ACTIONS_BOT, commitId: HEAD_1, path: "src/a.ts", line: 1, body: `earlier\n\n${one ?? ""}` });
    await publish(token, report);
    const ours = (standIn.state.reviews.get(`${REPO}#5`) ?? []).filter((r) => r.user.id === ACTIONS_BOT.id);
    expect(ours[0]?.comments).toHaveLength(2);
  });

  it("read-only (a fork's PR) — nothing posted, every finding a workflow command or in the step summary", async () => {
    const token = issueWorkflowToken(standIn, REPO, { contents: "read", pull_requests: "read", checks: "read" });
    const before = standIn.requests.length;
    const { result, lines, summary, output } = await publish(token, reportOf(HEAD_1, FIRST));
    expect(standIn.state.checkRuns.size).toBe(0);
    expect(standIn.state.reviews.get(`${REPO}#5`) ?? []).toHaveLength(0);
    const posts = standIn.requests.slice(before).filter((r) => r.method === "POST");
    expect(posts.map((r) => [r.path, r.status])).toEqual([
      ["/repos/octo/app/check-runs", 403],
      ["/repos/octo/app/pulls/5/reviews", 403],
    ]);
    expect(lines.filter((l) => l.startsWith("::error "))).toHaveLength(10);
    expect(lines.filter((l) => l.startsWith("::warning "))).toHaveLength(1);
    for (const line of lines) expect(line).not.toMatch(/[\r\n]/);
    expect(lines[0]).toBe("::error file=src/a.ts,line=1,endLine=1,title=lint%3A R1::R1 at 1%0A::error::forged");
    for (const each of FIRST) {
      const seen = lines.some((l) => l.includes(`title=lint%3A ${each.rule ?? ""}::`)) || summary.includes(`${each.rule ?? ""} at ${each.line ?? 0}`);
      expect(seen, each.rule ?? "").toBe(true);
    }
    expect(summary).toContain("Findings not shown as annotations");
    expect(output).toContain("conclusion=failure\n");
    expect(result.exitCode).toBe(1);
  });
});
