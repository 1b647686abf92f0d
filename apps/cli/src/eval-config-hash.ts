import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LlmEnabledSettings } from "@reviewbot/llm/llm-settings";

/**
 * What decides a review's result besides the case: the endpoint and model settings (never the
 * key), the line window, and the AI review's own code (every built file of the review package's
 * `ai/`, so a prompt or loop change is never answered from a cache filled before it), and the
 * judge: its model (`null` for none) and its built code (prompt and answer parser).
 */
export async function evalConfigHash(llm: LlmEnabledSettings, window: number, judgeModel: string | null): Promise<string> {
  const hash = createHash("sha256");
  const { protocol, baseUrl, model, maxTokens, contextTokens, jobTokens, jobMicrodollars, fetchHosts } = llm;
  hash.update(JSON.stringify({ protocol, baseUrl, model, maxTokens, contextTokens, jobTokens, jobMicrodollars, fetchHosts, window, judgeModel }));
  const aiDir = dirname(fileURLToPath(import.meta.resolve("@reviewbot/review/ai/ai-review")));
  const files = (await readdir(aiDir, { recursive: true })).filter((file) => file.endsWith(".js")).sort();
  for (const file of files) hash.update(`${file}\0`).update(await readFile(join(aiDir, file)));
  const evalDir = dirname(fileURLToPath(import.meta.resolve("@reviewbot/review/eval/judge-pair")));
  for (const file of ["judge-pair.js", "judge-answer.js"]) hash.update(`eval/${file}\0`).update(await readFile(join(evalDir, file)));
  return hash.digest("hex").slice(0, 32);
}
