import { Worker } from "node:worker_threads";
import { extractFindings, type ExtractedFindings, type ExtractRequest } from "./extract-findings.js";
import { formatBytes } from "./format-bytes.js";

const MiB = 1024 * 1024;
/** The young generation of the parse thread: short-lived objects; the ceiling is the old generation's. */
const YOUNG_GENERATION_MB = 8;
const WORKER_URL = new URL("./parse-worker.js", import.meta.url);
/**
 * Output up to this size is read on the calling thread: a linear parser reads it in a few
 * milliseconds and a bounded heap (issue 11's growth tests), while starting a thread costs
 * 50–150 ms on a busy 2-core host.
 */
export const IN_THREAD_BYTES = 64 * 1024;

/** How long and how much heap reading one helper's output may take. */
export interface ParseBudget {
  readonly timeoutMs: number;
  /** The parse thread's old-generation heap, where the parsed document lives. */
  readonly memoryBytes: number;
}

/** The findings, or why the output was not read (`findings not parsed: …`). */
export type BudgetedFindings = { readonly ok: true; readonly value: ExtractedFindings } | { readonly ok: false; readonly reason: string };

/**
 * Runs {@link extractFindings} on one helper's output in a worker thread of its own, off the
 * event loop (output of at most {@link IN_THREAD_BYTES} is read in place). The thread's heap is
 * held to `budget.memoryBytes` (V8 stops it at the ceiling), and it is terminated at
 * `budget.timeoutMs` or when `signal` aborts. Output that cannot be read within the budget is not
 * an error of the review: the result says why, in words for the report (`findings not parsed:
 * 2.3 MiB of sarif took more than 10 s`). The bytes are copied to the thread; the caller keeps
 * its buffer.
 */
export function parseUnderBudget(request: ExtractRequest, budget: ParseBudget, signal?: AbortSignal): Promise<BudgetedFindings> {
  const output = typeof request.output === "string" ? Buffer.from(request.output, "utf8") : request.output;
  if (output.byteLength <= IN_THREAD_BYTES) return Promise.resolve({ ok: true, value: extractFindings(request) });
  const bytes = new Uint8Array(output); // a copy in an ArrayBuffer of its own, moved to the thread
  const size = `${formatBytes(bytes.byteLength)} of ${request.format}`;
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_URL, {
      workerData: { ...request, output: bytes },
      transferList: [bytes.buffer],
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(1, Math.floor(budget.memoryBytes / MiB) - YOUNG_GENERATION_MB),
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
        stackSizeMb: 4,
      },
      // The thread needs nothing of the worker's environment (which may hold credentials) or flags.
      env: {},
      execArgv: [],
    });
    let settled = false;
    const finish = (result: BudgetedFindings): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
      void worker.terminate();
    };
    const refuse = (why: string) => {
      finish({ ok: false, reason: `findings not parsed: ${size} ${why}` });
    };
    const onAbort = () => {
      refuse("were not read: the review was cancelled");
    };
    const timer = setTimeout(() => {
      refuse(`took more than ${String(budget.timeoutMs / 1000)} s`);
    }, budget.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted === true) onAbort();
    worker.once("message", (value: ExtractedFindings) => {
      finish({ ok: true, value });
    });
    worker.once("error", (err: Error & { code?: string }) => {
      if (err.code === "ERR_WORKER_OUT_OF_MEMORY") refuse(`needed more than ${formatBytes(budget.memoryBytes)} of memory`);
      else refuse(`could not be read: the parser failed (${err.name})`);
    });
    worker.once("exit", () => {
      refuse("could not be read: the parser stopped without a result");
    });
  });
}
