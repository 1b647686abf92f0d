import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  reply,
  startModelStandIn,
  type ModelProtocol,
  type ModelReply,
  type ModelStandIn,
  type ModelStandInRequest,
} from "@reviewbot/llm/testing/model-stand-in";
import { runCli, type CliResult } from "../support/cli-runner.js";
import { calcFinding, createReviewRepo } from "../support/review-repos.js";
import { reachableTempDir } from "../support/temp-dirs.js";

const MODEL = "stand-in-coder";
// The operator's key, and a value that is no secret: where one is scrubbed and the other is not,
// the scrubbing is what made the difference.
const KEY = `sk-canary-${randomUUID()}`;
const CONTROL = `not-a-secret-${randomUUID()}`;
// An OSC (sets the terminal's title) and a CSI (clears the screen), as a model tricked by the PR might write them.
const ESCAPES = "\u001b]0;pwned\u0007\u001b[2J";

const CALC = ["export function total(items: number[]): number {", "  let sum = 1;", "  for (const item of items) sum += item;", "  return sum;", "}", ""].join(
  "\n",
);

let root = "";
let repo = "";
let keyFile = "";
let model: ModelStandIn;

beforeAll(async () => {
  root = await reachableTempDir("cli-ai-review");
  keyFile = join(root, "llm-key");
  await writeFile(keyFile, `${KEY}\n`, { mode: 0o600 });
  model = await startModelStandIn({ apiKey: KEY });
  // No .ai/ on the base: no helper and no context script run, so no sandbox is needed.
  repo = createReviewRepo(join(root, "repo"), {
    fork: (tree) => {
      tree.write("src/calc.ts", CALC);
      // The PR commits the operator's key next to a harmless value: the model is sent the second, never the first.
      tree.write("config/leak.env", `LLM_KEY=${KEY}\nHARMLESS=${CONTROL}\n`);
      tree.write("package-lock.json", '{ "lockfileVersion": 3 }\n');
    },
  }).dir;
});
afterAll(async () => {
  await (model as ModelStandIn | undefined)?.close();
  await rm(root, { recursive: true, force: true });
});

/** The review the model is scripted to give: it reads the changed file, then submits two findings. */
const REVIEW_SCRIPT: readonly ModelReply[] = [
  reply.toolCall("read_file", { path: "src/calc.ts" }),
  reply.toolCall("submit_review", {
    // The endpoint holds the key and could write it back; a model could write escape sequences.
    summary: `The total starts at one. ${KEY} ${CONTROL} ${ESCAPES}`,
    findings: [
      calcFinding("error"),
      { path: "src/calc.ts", side: "RIGHT", line: 4, severity: "warning", category: "style", title: "Wrong anchor", body: "b", anchorText: "return total;" },
    ],
  }),
];

function llmEnv(protocol: ModelProtocol, more: Record<string, string> = {}): Record<string, string> {
  return {
    REVIEWBOT_LLM_PROTOCOL: protocol,
    REVIEWBOT_LLM_BASE_URL: model.url(protocol),
    REVIEWBOT_LLM_MODEL: MODEL,
    REVIEWBOT_LLM_API_KEY_FILE: keyFile,
    ...more,
  };
}

/** `reviewbot review` of the PR, unsandboxed (nothing runs in a sandbox); the model requests it made. */
async function review(format: "json" | "sarif" | "text", env: Record<string, string>): Promise<{ result: CliResult; requests: ModelStandInRequest[] }> {
  const before = model.requests.length;
  const result = await runCli(["review", "--repo", repo, "--base", "main", "--head", "fork", "--engine", "none", "--format", format], {
    REVIEWBOT_CACHE_DIR: join(root, "cache"),
    REVIEWBOT_SANDBOX: "off",
    ...env,
  });
  return { result, requests: model.requests.slice(before) };
}

const aiOf = (result: CliResult): Record<string, unknown> => (JSON.parse(result.stdout) as { ai: Record<string, unknown> }).ai;

/** Every header value but the protocol's auth header. */
function otherHeaders(request: ModelStandInRequest, protocol: ModelProtocol): string {
  const auth = protocol === "openai" ? "authorization" : "x-api-key";
  return request.rawHeaders.filter((_value, index) => index % 2 === 1 && request.rawHeaders[index - 1]?.toLowerCase() !== auth).join("\n");
}

describe.each<ModelProtocol>(["openai", "anthropic"])("reviewbot review with a model (%s)", (protocol) => {
  let run: { result: CliResult; requests: ModelStandInRequest[] };
  beforeAll(async () => {
    model.script(REVIEW_SCRIPT);
    run = await review("json", llmEnv(protocol));
  }, 120_000);

  it("reports the placed finding, the unplaced one with its reason, usage and coverage; the AI finding alone fails the review", () => {
    const { result } = run;
    // No helper ran: the model's error-severity finding reaches the default fail level.
    expect(result.status, result.stderr).toBe(1);
    const ai = aiOf(result);
    expect(Object.keys(ai)).toEqual(["status", "model", "since", "summary", "findings", "unplaced", "usage", "coverage", "note"]);
    // The CLI reviews the whole PR: there is no earlier review to start from. The lockfile the PR
    // changes was left out, so the review is partial, and says so.
    expect(ai).toMatchObject({
      status: "partial",
      model: MODEL,
      since: null,
      note: "the model did not read 1 of the changed files or hunks (listed as skipped)",
    });
    // The optional fields the model left out are absent, not null.
    expect(ai.findings).toEqual([
      { path: "src/calc.ts", line: 2, side: "RIGHT", severity: "error", category: "bug", title: "The sum starts at 1", body: "Start at 0." },
    ]);
    expect(ai.unplaced).toEqual([{ path: "src/calc.ts", line: 4, title: "Wrong anchor", reason: "anchorText does not match line 4" }]);
    const usage = ai.usage as { inputTokens: number; outputTokens: number; turns: number; toolCalls: number };
    expect(Object.keys(usage)).toEqual(["inputTokens", "outputTokens", "turns", "toolCalls"]);
    expect([usage.turns, usage.toolCalls]).toEqual([2, 2]);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(ai.coverage).toEqual({ files: 3, reviewedFiles: 2, skipped: [{ path: "package-lock.json", reason: "lockfile" }] });
  });

  it("ran the model's read_file on the head's git objects: the second request carries the file's lines", () => {
    expect(run.requests.map((request) => [request.protocol, request.status])).toEqual([
      [protocol, 200],
      [protocol, 200],
    ]);
    expect(run.requests[1]?.bodyText).toContain("src/calc.ts (head) lines 1-5 of 5");
    expect(run.requests[0]?.bodyText).not.toContain("src/calc.ts (head) lines 1-5 of 5");
  });

  it("sends the key in the auth header only, never in a body, and scrubs it from what the PR showed the model", () => {
    for (const request of run.requests) {
      if (protocol === "openai") expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      else expect(request.headers["x-api-key"]).toBe(KEY);
      expect(request.bodyText).not.toContain(KEY);
      expect(otherHeaders(request, protocol)).not.toContain(KEY);
    }
    // Control: the same file's harmless line did reach the model, its key line redacted.
    expect(run.requests[0]?.bodyText).toContain(CONTROL);
    expect(run.requests[0]?.bodyText).toContain("LLM_KEY=[REDACTED]");
  });

  it("keeps the key out of stdout and stderr although the endpoint wrote it into the summary", () => {
    expect(run.result.stdout).toContain(CONTROL);
    expect(aiOf(run.result).summary).toContain("[REDACTED]");
    expect(`${run.result.stdout}\n${run.result.stderr}`).not.toContain(KEY);
    // The control of the text output's test: the escape sequences the model wrote are in the report (JSON-escaped).
    expect(aiOf(run.result).summary).toContain(ESCAPES);
  });
});

describe("reviewbot review with a model: SARIF and text", () => {
  it("lists the AI finding in SARIF as ai/bug, with its rule in the driver", async () => {
    model.script(REVIEW_SCRIPT);
    const { result } = await review("sarif", llmEnv("openai"));
    expect(result.status, result.stderr).toBe(1);
    const sarif = JSON.parse(result.stdout) as {
      runs: {
        tool: { driver: { name: string; rules: { id: string }[] } };
        results: { ruleId: string; level: string; locations: { physicalLocation: unknown }[] }[];
      }[];
    };
    expect(sarif.runs.map((run) => run.tool.driver.name)).toEqual(["reviewbot-ai"]);
    const [ai] = sarif.runs;
    expect(ai?.tool.driver.rules.map((rule) => rule.id)).toEqual(["ai/bug"]);
    expect(ai?.results.map((r) => [r.ruleId, r.level, r.locations[0]?.physicalLocation])).toEqual([
      ["ai/bug", "error", { artifactLocation: { uri: "src/calc.ts" }, region: { startLine: 2 } }],
    ]);
  }, 120_000);

  it("shows the AI review under its own heading, with the summary, and no escape sequence the model wrote", async () => {
    model.script(REVIEW_SCRIPT);
    const { result } = await review("text", llmEnv("openai"));
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^AI review \(stand-in-coder\): 1 comment\(s\); reviewed 2 of 3 file\(s\) \[partial\]$/m);
    expect(result.stdout).toMatch(/^ {2}The total starts at one\. \[REDACTED\] not-a-secret-/m);
    expect(result.stdout).toMatch(/^src\/calc\.ts\n {2}2 +error +The sum starts at 1 \[ai\/bug\]\n +Start at 0\.$/m);
    expect(result.stdout).toContain("not placed: src/calc.ts:4 Wrong anchor (anchorText does not match line 4)");
    expect(result.stdout).toContain("not reviewed: package-lock.json (lockfile)");
    // The JSON output of the same answer keeps them (see above): the text output removed them.
    expect(result.stdout).not.toContain("\u001b");
    expect(result.stdout).not.toContain("pwned");
    expect(result.stdout).not.toContain(KEY);
  }, 120_000);
});

describe("reviewbot review: the AI review's bounds and absence", () => {
  it("spends no call past its own token budget (REVIEWBOT_LLM_JOB_TOKENS) and says the review failed", async () => {
    model.script(REVIEW_SCRIPT);
    const { result, requests } = await review("json", llmEnv("openai", { REVIEWBOT_LLM_JOB_TOKENS: "1500" }));
    expect(result.status, result.stderr).toBe(0);
    expect(requests).toEqual([]);
    const ai = aiOf(result);
    expect(ai).toMatchObject({ status: "failed", findings: [], coverage: { files: 3, reviewedFiles: 0 } });
    expect((ai.coverage as { skipped: unknown[] }).skipped).toContainEqual({ path: "src/calc.ts", reason: "no review (tokens)" });
  }, 120_000);

  it("is off without REVIEWBOT_LLM_BASE_URL: ai.status off, no model call, the same PR passes", async () => {
    model.script(REVIEW_SCRIPT);
    const json = await review("json", {});
    expect(json.result.status, json.result.stderr).toBe(0);
    expect(json.requests).toEqual([]);
    expect(aiOf(json.result)).toMatchObject({ status: "off", model: null, findings: [], unplaced: [] });
    const text = await review("text", {});
    expect(text.result.status, text.result.stderr).toBe(0);
    expect(text.result.stdout).toMatch(/^AI review: off \(set REVIEWBOT_LLM_BASE_URL and REVIEWBOT_LLM_MODEL to turn it on/m);
  }, 120_000);
});

describe("reviewbot llm doctor", () => {
  const doctor = (env: Record<string, string>): Promise<CliResult> => runCli(["llm", "doctor"], env);

  it.each<ModelProtocol>(["openai", "anthropic"])(
    "passes against a working %s endpoint: the settings without the key, then each step",
    async (protocol) => {
      model.script([reply.text("ready"), reply.toolCall("echo_number", { n: 42 }), reply.text("The number is 42.")]);
      const before = model.requests.length;
      const result = await doctor(llmEnv(protocol));
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^protocol +${protocol}$`, "m"));
      expect(result.stdout).toMatch(new RegExp(`^endpoint +${model.url(protocol).replace(/[.]/g, "\\.")}/(?:chat/completions|v1/messages)$`, "m"));
      expect(result.stdout).toMatch(/^api key +set$/m);
      expect(result.stdout).toMatch(/^model +stand-in-coder$/m);
      expect(result.stdout).toMatch(/^context tokens +32768$/m);
      expect(result.stdout).toMatch(/^ok {3}plain call +\(\d+ ms\) answered/m);
      expect(result.stdout).toMatch(/^ok {3}tool call +\(\d+ ms\) called echo_number with n = 42 /m);
      expect(result.stdout).toMatch(/^ok {3}tool result +\(\d+ ms\) answered in text/m);
      expect(result.stdout).toMatch(/^note +context window: 32768 tokens as configured/m);
      expect(result.stdout).toMatch(/^result +ready for the AI review$/m);
      expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
      // The round trip happened: the third request carries the tool's result.
      const requests = model.requests.slice(before);
      expect(requests).toHaveLength(3);
      expect(requests[2]?.bodyText).toContain("echo_number");
    },
    60_000,
  );

  it.each([
    ["text instead of a tool call", reply.text("Sure, the number is 42."), /the model answered without calling the tool although it had to/],
    ["its tool call written as text", reply.leakedToolCall("echo_number", { n: 42 }), /the model wrote its tool call as text: the server does not parse/],
  ])(
    "fails with the reason when the model answers with %s",
    async (_case, answer, reason) => {
      model.script([reply.text("ready"), answer]);
      const result = await doctor(llmEnv("openai"));
      expect(result.status, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toMatch(/^ok {3}plain call/m);
      expect(result.stdout).toMatch(/^FAIL tool call/m);
      expect(result.stdout.split("\n").find((line) => line.startsWith("FAIL tool call"))).toMatch(reason);
      expect(result.stdout).toMatch(/^skip tool result +skipped: the tool call failed$/m);
      expect(result.stdout).toMatch(/^result +NOT READY for the AI review$/m);
    },
    60_000,
  );

  it.each([
    ["the key", KEY, false],
    ["a harmless name (control)", CONTROL, true],
  ])(
    "prints the model name the endpoint answers with, scrubbed of the key: %s",
    async (_case, name, shown) => {
      const answer = {
        id: "chatcmpl-1",
        object: "chat.completion",
        model: name,
        choices: [{ index: 0, message: { role: "assistant", content: "ready" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 1 },
      };
      model.script([reply.raw(JSON.stringify(answer))]);
      const result = await doctor(llmEnv("openai"));
      expect(result.stdout).toMatch(/^ok {3}plain call/m);
      expect(result.stdout.includes(name)).toBe(shown);
      expect(result.stdout.includes("model [REDACTED]")).toBe(!shown);
    },
    60_000,
  );

  it("without a base URL says the AI review is off and how to turn it on, exit 1", async () => {
    const result = await doctor({});
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^AI review +off: REVIEWBOT_LLM_BASE_URL is not set$/m);
    expect(result.stdout).toContain("REVIEWBOT_LLM_MODEL=");
  });

  it.each([
    [
      "a base URL carrying the key",
      { REVIEWBOT_LLM_BASE_URL: `http://user:${KEY}@127.0.0.1:1/v1`, REVIEWBOT_LLM_MODEL: MODEL },
      /^reviewbot: CONFIG_INVALID: REVIEWBOT_LLM_BASE_URL: must not carry credentials/,
    ],
    ["no model", { REVIEWBOT_LLM_BASE_URL: "http://127.0.0.1:1/v1" }, /^reviewbot: CONFIG_INVALID: REVIEWBOT_LLM_MODEL: is required/],
    ["an unknown REVIEWBOT_LLM_ name", { REVIEWBOT_LLM_MODLE: MODEL }, /^reviewbot: CONFIG_INVALID: REVIEWBOT_LLM_MODLE/],
  ])("exits 2 on %s, naming the variable and never the value", async (_case, env, reason) => {
    const result = await doctor(env);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).not.toContain(KEY);
  });

  it("exits 2 with the usage on an unknown llm subcommand", async () => {
    const result = await runCli(["llm", "check"], {});
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^reviewbot: USAGE: llm takes one subcommand: doctor$/m);
    expect(result.stderr).toContain("llm doctor");
  });
});
