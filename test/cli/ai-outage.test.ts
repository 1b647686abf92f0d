import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "@reviewbot/review/pipeline/report";
import { reply, startModelStandIn, type ModelReply, type ModelStandIn } from "@reviewbot/llm/testing/model-stand-in";
import { runCli, type CliResult } from "../support/cli-runner.js";
import { calcFinding, createReviewRepo, printingHelper } from "../support/review-repos.js";
import { reachableTempDir } from "../support/temp-dirs.js";

const MODEL = "stand-in-coder";
const KEY = `sk-canary-${randomUUID()}`;

// A model endpoint that is down for good: every call a 500 (whose message echoes the key, as a
// broken proxy might), retried at once so the client's attempts are spent in milliseconds.
const DOWN = (): ModelReply => reply.status(500, { errorMessage: `upstream exploded near ${KEY}`, headers: { "retry-after-ms": "1" } });

const REVIEW_SCRIPT: readonly ModelReply[] = [
  reply.toolCall("submit_review", {
    summary: "The sum starts at one.",
    findings: [calcFinding("warning")],
  }),
];

let root = "";
let keyFile = "";
let model: ModelStandIn;
/** A PR whose helper finds an error on a changed line. */
let failing = "";
/** The same PR whose helper finds nothing. */
let clean = "";

beforeAll(async () => {
  root = await reachableTempDir("cli-ai-outage");
  keyFile = join(root, "llm-key");
  await writeFile(keyFile, `${KEY}\n`, { mode: 0o600 });
  model = await startModelStandIn({ apiKey: KEY });
  const fork = (tree: { write(path: string, text: string): void }): void => {
    tree.write("src/calc.ts", "export function total(items: number[]): number {\n  let sum = 1;\n  return sum;\n}\n");
  };
  failing = createReviewRepo(join(root, "failing"), {
    helpers: [printingHelper("lint", ["src/calc.ts:2: E1 sum starts at one"], { severity: { default: "error" } })],
    fork,
  }).dir;
  clean = createReviewRepo(join(root, "clean"), { helpers: [printingHelper("lint", [])], fork }).dir;
});
afterAll(async () => {
  await (model as ModelStandIn | undefined)?.close();
  await rm(root, { recursive: true, force: true });
});

/** `reviewbot review --format json` of a PR, unsandboxed (the helper is printf), with the stand-in as the model. */
function review(repo: string, failLevel: string): Promise<CliResult> {
  return runCli(["review", "--repo", repo, "--base", "main", "--head", "fork", "--engine", "none", "--format", "json", "--fail-level", failLevel], {
    REVIEWBOT_CACHE_DIR: join(root, "cache"),
    REVIEWBOT_SANDBOX: "off",
    REVIEWBOT_LLM_PROTOCOL: "openai",
    REVIEWBOT_LLM_BASE_URL: model.url("openai"),
    REVIEWBOT_LLM_MODEL: MODEL,
    REVIEWBOT_LLM_API_KEY_FILE: keyFile,
  });
}

const parsed = (result: CliResult): Report => JSON.parse(result.stdout) as Report;

describe("reviewbot review while the model endpoint is down", () => {
  it("prints the whole report: the helper's finding, ai.status failed with the scrubbed reason; exit 1 at --fail-level error", async () => {
    model.script(DOWN);
    const before = model.requests.length;
    const result = await review(failing, "error");
    expect(result.status, result.stderr).toBe(1);
    const report = parsed(result);
    expect(report.findings.map((finding) => [finding.path, finding.line, finding.severity, finding.helper])).toEqual([["src/calc.ts", 2, "error", "lint"]]);
    expect(report.ai).toMatchObject({ status: "failed", model: MODEL, findings: [] });
    expect(report.ai.note).toMatch(/^the model endpoint is unavailable: the model endpoint failed 4 attempts; the last: HTTP 500/);
    // The client really tried, and gave up: every attempt met the 500.
    expect(model.requests.slice(before).map((request) => request.status)).toEqual([500, 500, 500, 500]);
    expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
  }, 120_000);

  it("exits 0 when the helpers found nothing at the fail level: the outage alone fails nothing", async () => {
    model.script(DOWN);
    const result = await review(clean, "error");
    expect(result.status, result.stderr).toBe(0);
    expect(parsed(result)).toMatchObject({ findings: [], ai: { status: "failed" } });
    // The same outage, --fail-level none on the PR with the error: 0 as well.
    model.script(DOWN);
    expect((await review(failing, "none")).status).toBe(0);
  }, 120_000);

  it("control: with the model answering, the AI review's finding is in the same report, next to the helper's", async () => {
    model.script(REVIEW_SCRIPT);
    const result = await review(clean, "warning");
    // The model's warning alone reaches --fail-level warning.
    expect(result.status, result.stderr).toBe(1);
    const report = parsed(result);
    expect(report.ai).toMatchObject({ status: "done", note: null });
    expect(report.ai.findings.map((finding) => [finding.path, finding.line, finding.title])).toEqual([["src/calc.ts", 2, "The sum starts at 1"]]);
  }, 120_000);
});
