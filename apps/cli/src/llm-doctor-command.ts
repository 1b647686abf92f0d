import { stripControls } from "@reviewbot/core/strip-controls";
import type { LlmSettings } from "@reviewbot/llm/llm-settings";
import { createModelClient } from "@reviewbot/llm/model-client";
import { probeEndpoint, type ProbeStep } from "@reviewbot/llm/probe-endpoint";

export interface LlmDoctorOutcome {
  readonly output: string;
  /** 0 when every probe step passed, 1 when one failed or no model is configured. */
  readonly exitCode: number;
}

const HOW_TO_TURN_ON = [
  "AI review        off: REVIEWBOT_LLM_BASE_URL is not set",
  "",
  "To turn it on, set for example:",
  "  Ollama:    REVIEWBOT_LLM_BASE_URL=http://127.0.0.1:11434/v1 REVIEWBOT_LLM_MODEL=qwen2.5-coder:14b",
  "  vLLM:      REVIEWBOT_LLM_BASE_URL=http://vllm:8000/v1 REVIEWBOT_LLM_MODEL=<served model> REVIEWBOT_LLM_API_KEY_FILE=<file>",
  "  Anthropic: REVIEWBOT_LLM_PROTOCOL=anthropic REVIEWBOT_LLM_BASE_URL=https://api.anthropic.com REVIEWBOT_LLM_MODEL=<model> REVIEWBOT_LLM_API_KEY_FILE=<file>",
  "and REVIEWBOT_LLM_CONTEXT_TOKENS to the model's context window; then run `reviewbot llm doctor` again.",
];

/**
 * `reviewbot llm doctor`: shows the model settings (never the key: only whether one is set), then
 * probes the endpoint (`probeEndpoint`): a plain call, a tool call it must make, and the tool's
 * result sent back, each with its time and what came back or why it failed, and the notes on the
 * context window. One attempt per call: a diagnosis reports what the endpoint does, retries would
 * hide a flaky one. No base URL: says the AI review is off and how to turn it on, and exits 1 (the
 * AI review cannot run, which is what the command checks).
 */
export async function llmDoctorCommand(llm: LlmSettings): Promise<LlmDoctorOutcome> {
  if (!llm.enabled) return { output: `${HOW_TO_TURN_ON.join("\n")}\n`, exitCode: 1 };
  const lines = [
    `protocol         ${llm.protocol}`,
    `endpoint         ${llm.endpoint}`,
    `api key          ${llm.apiKey === "" ? "none (no auth header is sent)" : "set"}`,
    `model            ${llm.model}`,
    `context tokens   ${llm.contextTokens}`,
    `output tokens    ${llm.maxTokens} per call`,
    `fetch_url        ${llm.fetchHosts.length === 0 ? "not offered (no REVIEWBOT_LLM_FETCH_HOSTS)" : llm.fetchHosts.join(", ")}`,
  ];
  const client = createModelClient({ protocol: llm.protocol, baseUrl: llm.baseUrl, apiKey: llm.apiKey, timeoutMs: llm.timeoutMs, attempts: 1 });
  const report = await probeEndpoint(client, llm.model, { contextTokens: llm.contextTokens, baseUrl: llm.baseUrl });
  lines.push(...report.steps.map(describe), ...report.notes.map((note) => `note             ${note}`));
  lines.push(`result           ${report.ok ? "ready for the AI review" : "NOT READY for the AI review"}`);
  return { output: `${lines.join("\n")}\n`, exitCode: report.ok ? 0 : 1 };
}

function describe(step: ProbeStep): string {
  const mark = step.ok ? "ok  " : step.skipped ? "skip" : "FAIL";
  // The detail quotes the endpoint (its model name, an error's excerpt): no control reaches the terminal.
  return `${mark} ${step.name.padEnd(12)} ${step.skipped ? "" : `(${step.ms} ms) `}${stripControls(step.detail)}`;
}
