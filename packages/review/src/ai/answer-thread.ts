import { z } from "zod";
import { isAppError } from "@reviewbot/core/errors";
import type { TokenUsage } from "@reviewbot/contracts/chat";
import type { Checkout } from "@reviewbot/overlay/clone-cache";
import type { AiReviewOptions } from "./ai-review.js";
import type { AiTool } from "./tools/ai-tool.js";
import { fetchTool } from "./tools/fetch-tool.js";
import { RepoReader } from "./repo/repo-reader.js";
import { repoSourceOf } from "./repo/repo-source.js";
import { repoTools } from "./tools/repo-tools.js";
import { answerPrompt } from "./review-prompt.js";
import { readRules } from "./review-rules.js";
import { submitTool } from "./tools/submit-tool.js";
import { runToolLoop, type LoopEnd } from "./loop/tool-loop.js";
import { newNonce, wrapUntrusted, type UntrustedKind } from "./untrusted-text.js";

const MAX_TURNS = 12;
const TOOL_ANSWER_CHARS = 24_000;
/** The characters of the thread shown: its latest comments are kept. */
const THREAD_CHARS = 24_000;

// The answer's length is the caller's (the worker protocol's limit), so the model is held to the one the api accepts.
function submitAnswer(maxChars: number) {
  const schema = z.strictObject({ answer: z.string().min(1).max(maxChars).describe("Your answer, in Markdown, to the last comment of the thread.") });
  return submitTool("submit_answer", "Submit your answer to the last comment of the thread. Call it once, at the end.", schema, 4 * maxChars);
}

/** A review thread of ours, oldest comment first; `ours` marks what we posted. */
export interface AnswerableThread {
  readonly path: string;
  readonly line: number | null;
  readonly comments: readonly { readonly author: string; readonly ours: boolean; readonly body: string }[];
}

export interface ThreadAnswer {
  /** The model's validated `submit_answer`, or null when it made none. */
  readonly answer: string | null;
  readonly ended: LoopEnd;
  readonly usage: TokenUsage;
}

/**
 * Answers a trusted reviewer's reply in one of our review threads: the same model
 * broker, budgets, read-only tools over git objects and `fetch_url` as the review (the helpers are
 * not offered: they need the review's sandboxes), our own system prompt with the default branch's
 * review rules, and the whole thread as untrusted data — a reviewer's words ask a question, they
 * do not instruct. The answer is the model's validated `submit_answer`, never free text.
 */
export function createThreadAnswerer(
  options: AiReviewOptions,
  maxAnswerChars: number,
): (checkout: Checkout, thread: AnswerableThread, signal: AbortSignal) => Promise<ThreadAnswer> {
  const submit = submitAnswer(maxAnswerChars);
  return async (checkout, thread, signal) => {
    const nonce = newNonce();
    const wrap = (kind: UntrustedKind, label: string, text: string, maxChars = TOOL_ANSWER_CHARS): string =>
      wrapUntrusted({ kind, label, text, nonce, maxChars, scrub: options.scrub });
    const rules = checkout.overlay.failedClosed ? null : await readRules(checkout.dir);
    const tools: AiTool[] = [...repoTools(new RepoReader(repoSourceOf(checkout))), ...(options.fetchUrl === undefined ? [] : [fetchTool(options.fetchUrl)])];
    const transcript = thread.comments
      .map((comment) => `${comment.ours ? "you (reviewbot)" : `@${comment.author}`} wrote:\n${comment.body}`)
      .join("\n\n---\n\n");
    const opening = [
      `A maintainer replied in a review thread on one of your comments on this pull request, about ${thread.line === null ? "a file" : `line ${thread.line} of a file`} (the path is in the thread's label).`,
      "The thread, oldest first (your own comments included; the last one is the reply to answer):",
      wrap("review-thread", thread.path, transcript.length > THREAD_CHARS ? transcript.slice(-THREAD_CHARS) : transcript, THREAD_CHARS),
      "Look at the code with the tools if it helps, then call submit_answer with a short, factual answer.",
    ].join("\n\n");
    try {
      const outcome = await runToolLoop(
        {
          model: options.model,
          system: answerPrompt({ nonce, rules }),
          tools,
          opening,
          limits: { maxTurns: MAX_TURNS, maxOutputTokens: options.maxOutputTokens, deadline: options.deadline, maxRepeats: 5 },
          tokensLeft: options.tokensLeft,
          wrap,
          signal,
        },
        submit,
      );
      return { answer: outcome.result?.answer ?? null, ended: outcome.ended, usage: outcome.usage };
    } catch (err) {
      // A provider that refuses the request: no answer, said so; one that is down fails the job (retried).
      if (isAppError(err) && err.code === "LLM_REFUSED") return { answer: null, ended: "no-submit", usage: { inputTokens: 0, outputTokens: 0 } };
      throw err;
    }
  };
}
