import { execFileSync } from "node:child_process";
import { copyFile, mkdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAction, type ActionRun } from "../support/action-runner.js";
import { startActionStand, type ActionStand } from "../support/action-stand.js";
import type { Upstream } from "../support/git-fixture.js";
import { ACTIONS_BOT, issueWorkflowToken } from "../support/github-stand-in-token-permissions.js";
import { createReviewRepo } from "../support/review-repos.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// The bundled action (issue 24) with a write token, fed a real CodeQL SARIF file by an earlier
// step (`sarif-input`): the scanner's findings on the diff go where every other finding goes (one
// check run, one PR review with inline comments, the step summary, the SARIF output), and a second
// run on a new push repeats no comment. Then the files an earlier step (maybe the PR's code) could
// leave instead: missing, not SARIF, huge, a FIFO, links out of the workspace. Each is a warning
// naming the file; none fails the step or gives a finding.

const REPOSITORY = "octo/scanned";
const PULL = 12;
// CodeQL 2.12.2's own output (packages/review/src/findings/fixtures/SOURCES.md): rules in the
// codeql/javascript-queries extension, results on src/Logger.ts:42 (error), src/HttpHandler.ts:75
// (two rules), src/utils/SignatureHelper.ts:53 and src/utils/passwordValidationUtils.ts:8.
const CODEQL_SARIF = fileURLToPath(new URL("../../packages/review/src/findings/fixtures/codeql-extensions.sarif", import.meta.url));
const OUTSIDE_CANARY = "OUTSIDE-WORKSPACE-CANARY";
const lines = (count: number, label: string) => Array.from({ length: count }, (_, i) => `// ${label} line ${String(i + 1)}`).join("\n") + "\n";
// The PR adds these; SignatureHelper.ts is not in it, so its finding is off the diff.
const PR_FILES = { "src/Logger.ts": 50, "src/HttpHandler.ts": 80, "src/utils/passwordValidationUtils.ts": 10 } as const;
const hunksOf = (files: Readonly<Record<string, number>>) =>
  Object.fromEntries(Object.entries(files).map(([path, count]) => [path, [[1, count]] as [number, number][]]));

let root = "";
let upstream: Upstream;
let stand: ActionStand;
let workspace = "";
let runs = 0;
let firstHead = "";

const sarifLog = (uri: string, message: string, level = "warning") =>
  JSON.stringify({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "Semgrep OSS" } },
        results: [
          { ruleId: "r", level, message: { text: message }, locations: [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: 3 } } }] },
        ],
      },
    ],
  });

beforeAll(async () => {
  root = await reachableTempDir("action-sarif");
  upstream = createReviewRepo(join(root, "source"), {
    helpers: [],
    fork: (tree) => {
      for (const [path, count] of Object.entries(PR_FILES)) tree.write(path, lines(count, path));
    },
  });
  firstHead = upstream.rev("fork");
  upstream.git(["update-ref", `refs/pull/${String(PULL)}/head`, firstHead]);
  stand = await startActionStand(root, REPOSITORY, upstream);
  stand.github.setPullRequest(REPOSITORY, {
    number: PULL,
    headSha: upstream.rev("fork"),
    baseSha: upstream.rev("main"),
    baseRef: "main",
    hunks: hunksOf(PR_FILES),
  });

  // What earlier steps left in the workspace: CodeQL's analyze output, and what hostile code could leave.
  workspace = join(root, "workspace");
  await mkdir(join(workspace, "codeql"), { recursive: true });
  await mkdir(join(workspace, "bad"), { recursive: true });
  await mkdir(join(root, "outside"), { recursive: true });
  await copyFile(CODEQL_SARIF, join(workspace, "codeql", "javascript.sarif"));
  await writeFile(join(root, "outside", "x.sarif"), sarifLog("src/Logger.ts", OUTSIDE_CANARY));
  await symlink(join(root, "outside", "x.sarif"), join(workspace, "bad", "link.sarif"));
  await symlink(join(root, "outside"), join(workspace, "bad", "linkdir"));
  await writeFile(join(workspace, "bad", "not-json.sarif"), "<html>not SARIF</html>");
  await writeFile(join(workspace, "bad", "huge.sarif"), "");
  await truncate(join(workspace, "bad", "huge.sarif"), 9 * 1024 * 1024); // sparse: past the 8 MiB cap
  execFileSync("mkfifo", [join(workspace, "bad", "fifo.sarif")]);
  // Results that name files outside the repository: problems, never findings; the two inside are read.
  await writeFile(
    join(workspace, "bad", "escapes.sarif"),
    JSON.stringify({
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "ESLint" } },
          results: [
            "file:///etc/passwd",
            "../../outside/x.ts",
            `file://${join(root, "outside", "x.ts")}`,
            "src/Logger.ts",
            `file://${workspace}/src/HttpHandler.ts`,
          ].map((uri) => ({
            ruleId: "no-escape",
            level: "note",
            message: { text: `about ${uri}` },
            locations: [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: 3 } } }],
          })),
        },
      ],
    }),
  );
}, 120_000);

afterAll(async () => {
  await (stand as ActionStand | undefined)?.close();
  await rm(root, { recursive: true, force: true });
});

async function run(token: string, headSha: string, inputs: Record<string, string>): Promise<ActionRun> {
  runs += 1;
  const dir = join(root, `run-${String(runs)}`);
  await mkdir(dir);
  const payload = {
    action: "synchronize",
    number: PULL,
    pull_request: { number: PULL, state: "open", head: { sha: headSha, ref: "feature", repo: { full_name: REPOSITORY, fork: false } }, base: { ref: "main" } },
    repository: { full_name: REPOSITORY },
    sender: { login: "octocat", type: "User" },
  };
  return runAction({
    dir,
    event: { name: "pull_request", payload },
    // No helper runs here (the base has none), so no sandbox is needed: `off` spares the engine probe.
    inputs: { "github-token": token, sandbox: "off", ...inputs },
    env: {
      GITHUB_REPOSITORY: REPOSITORY,
      GITHUB_SHA: headSha,
      GITHUB_WORKSPACE: workspace,
      GITHUB_API_URL: stand.github.url,
      GITHUB_SERVER_URL: stand.git.url,
      RUNNER_TEMP: join(root, `runner-temp-${String(runs)}`),
    },
  });
}

const reviews = () => stand.github.state.reviews.get(`${REPOSITORY}#${String(PULL)}`) ?? [];

describe("a write token (checks and pull-requests: write) and CodeQL's SARIF, through the bundle", () => {
  let token = "";
  let first: ActionRun;
  beforeAll(async () => {
    token = issueWorkflowToken(stand.github, REPOSITORY, { contents: "read", checks: "write", pull_requests: "write" });
    first = await run(token, firstHead, { "sarif-input": "codeql/javascript.sarif" });
  }, 180_000);

  it("creates one check run whose annotations are CodeQL's findings on the diff, named for CodeQL", () => {
    // fail-level error: CodeQL's js/clear-text-logging is an error (its extension rule's level).
    expect(first.status, first.stderr).toBe(1);
    const checks = [...stand.github.state.checkRuns.values()];
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ head_sha: firstHead, status: "completed", conclusion: "failure" });
    const annotations = (checks[0]?.annotations ?? []).map((a) => `${a.path}:${String(a.start_line)} ${a.annotation_level} ${a.title}`);
    expect(annotations.sort()).toEqual([
      "src/HttpHandler.ts:75 warning CodeQL: js/insufficient-password-hash",
      "src/HttpHandler.ts:75 warning CodeQL: js/weak-cryptographic-algorithm",
      "src/Logger.ts:42 failure CodeQL: js/clear-text-logging",
      "src/utils/passwordValidationUtils.ts:8 warning CodeQL: js/overly-large-range",
    ]);
    // Annotated in the check run, so no workflow command is needed.
    expect(first.stdout).not.toMatch(/^::(error|warning) file=/m);
  });

  it("posts one PR review as github-actions[bot] with the findings as inline comments", () => {
    const posted = reviews();
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ event: "COMMENT", commit_id: firstHead, user: ACTIONS_BOT });
    const comments = (posted[0]?.comments ?? []).map((c) => `${String(c.path)}:${String(c.line)}`);
    expect(comments.sort()).toEqual(["src/HttpHandler.ts:75", "src/HttpHandler.ts:75", "src/Logger.ts:42", "src/utils/passwordValidationUtils.ts:8"]);
    expect(posted[0]?.body).toContain("check run");
  });

  it("says in the step summary what the file gave, and writes CodeQL's findings to the SARIF output", async () => {
    expect(first.summary).toContain("Code scanner's SARIF `codeql/javascript.sarif`: 5 finding(s) read");
    expect(first.output).toMatch(/^findings=4$/m);
    const sarif = await readFile(join(root, "runner-temp-1", "reviewbot.sarif"), "utf8");
    expect(sarif).toContain("js/clear-text-logging");
  });

  it("a second run on a new push repeats no comment", async () => {
    const second = upstream.commitOn(
      "fork",
      (tree) => {
        tree.write("src/extra.ts", "export const extra = 1;\n");
      },
      "second push",
    );
    upstream.git(["update-ref", `refs/pull/${String(PULL)}/head`, second]);
    // The git host serves a mirror: push the new head there as GitHub would have it.
    execFileSync(
      "git",
      ["-C", join(root, "hosting", "octo", "scanned.git"), "fetch", "--quiet", upstream.dir, `+refs/pull/${String(PULL)}/head:refs/pull/${String(PULL)}/head`],
      {
        env: { ...process.env, HOME: upstream.home },
      },
    );
    stand.github.setPullRequest(REPOSITORY, {
      number: PULL,
      headSha: second,
      baseSha: upstream.rev("main"),
      baseRef: "main",
      hunks: hunksOf({ ...PR_FILES, "src/extra.ts": 1 }),
    });
    const again = await run(token, second, { "sarif-input": "codeql/javascript.sarif" });
    expect(again.status, again.stderr).toBe(1);
    // Every finding is on a line an earlier comment of ours carries the fingerprint of: no second review.
    expect(reviews()).toHaveLength(1);
    expect(again.summary).toContain("Pull request review: 0 new inline comment(s)");
    const checks = [...stand.github.state.checkRuns.values()];
    expect(checks.map((c) => c.head_sha)).toEqual([firstHead, second]);
  }, 180_000);
});

describe("sarif-input files that cannot be read", () => {
  let result: ActionRun;
  beforeAll(async () => {
    const files = ["missing.sarif", "not-json.sarif", "huge.sarif", "fifo.sarif", "link.sarif", "linkdir/x.sarif", "escapes.sarif"];
    // The PR's head by now (the stand-in's PR follows the second push when the write-token runs ran first).
    result = await run(stand.token, upstream.rev("fork"), { "sarif-input": files.map((file) => `bad/${file}`).join("\n") });
  }, 180_000);

  it("each is a warning naming the file and why; the step does not fail for it", () => {
    expect(result.status, result.stderr).toBe(0);
    const warnings = result.stdout.split("\n").filter((line) => line.startsWith("::warning title=reviewbot%3A sarif-input not read::"));
    const problems = warnings.map((line) => line.slice(line.lastIndexOf("::") + 2));
    expect(problems).toEqual([
      expect.stringMatching(/^bad\/missing\.sarif does not exist/),
      expect.stringMatching(/^bad\/not-json\.sarif output is not valid JSON/),
      expect.stringMatching(/^bad\/huge\.sarif is 9 MiB, more than the 8 MiB cap/),
      expect.stringMatching(/^bad\/fifo\.sarif is not a regular file/),
      expect.stringMatching(/^bad\/link\.sarif is a symbolic link/),
      expect.stringMatching(/^bad\/linkdir\/x\.sarif leads outside GITHUB_WORKSPACE through a symbolic link/),
    ]);
    expect(result.summary).toContain("Code scanner's SARIF `bad/huge.sarif`: **not read**");
  });

  it("nothing from outside the workspace becomes a finding; the result inside it does", () => {
    for (const text of [result.stdout, result.summary]) expect(text).not.toContain(OUTSIDE_CANARY);
    expect(result.stdout).not.toContain("about file:///etc/passwd::");
    // The negative control: the results on repository files are annotations (read-only token).
    expect(result.stdout).toMatch(/^::notice file=src\/Logger\.ts,line=3,.*title=ESLint%3A no-escape::about src\/Logger\.ts$/m);
    // A file URI under GITHUB_WORKSPACE is a repository path too (ESLint and ruff write absolute URIs).
    expect(result.stdout).toMatch(/^::notice file=src\/HttpHandler\.ts,line=3,.*title=ESLint%3A no-escape::about file:/m);
    expect(result.summary).toContain("Code scanner's SARIF `bad/escapes.sarif`: 2 finding(s) read");
    expect(result.summary).toMatch(/3 problem\(s\), the first: .*is absolute and outside the mount point/);
  });
});
