import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { extractFindings, type ExtractedFindings, type ExtractRequest } from "./extract-findings.js";
import { formatBytes } from "./format-bytes.js";
import { checkedParseResult } from "./parse-result.js";

const MiB = 1024 * 1024;
/** What the parse process keeps of the heap budget for its young generation: 3 semi-spaces of 2 MB, and slack. */
const YOUNG_GENERATION_MB = 8;
const SEMI_SPACE_MB = 2;
const CHILD_PATH = fileURLToPath(new URL("./parse-child.js", import.meta.url));
/** Enough of the parse process's stderr to hold V8's out-of-memory report, which follows its last GCs. */
const STDERR_KEPT_BYTES = 16 * 1024;
const OUT_OF_HEAP = "JavaScript heap out of memory";
/**
 * Output up to this size is read in place: a linear parser reads it in a few milliseconds and a
 * bounded heap (as the parsers' growth tests show), while starting a process costs tens of
 * milliseconds on a busy 2-core host (bench:parsers).
 */
export const IN_PLACE_BYTES = 64 * 1024;

/** How long and how much heap reading one helper's output may take. */
export interface ParseBudget {
  readonly timeoutMs: number;
  /** The parse process's heap, where the parsed document lives. */
  readonly memoryBytes: number;
}

/** The findings, or why the output was not read (`findings not parsed: …`). */
export type BudgetedFindings = { readonly ok: true; readonly value: ExtractedFindings } | { readonly ok: false; readonly reason: string };

/**
 * Runs {@link extractFindings} on one helper's output in a Node process of its own, off the event
 * loop (output of at most {@link IN_PLACE_BYTES} is read in place). The process's heap is held to
 * `budget.memoryBytes` by V8's flags, and it is killed at `budget.timeoutMs` or when `signal`
 * aborts. A process, not a worker thread: a thread at its `resourceLimits` is usually stopped
 * cleanly, but when JSON.parse keeps allocating past V8's last allowance the whole process aborts
 * (seen under load: one parse in a few hundred, each of them a worker taken down with every
 * review it ran). Here the abort is the parse process's. Output that cannot be read within the
 * budget is not an error of the review: the result says why, in words for the report
 * (`findings not parsed: 2.3 MiB of sarif took more than 10 s`). The process gets an empty
 * environment (the worker's may hold credentials; Node adds only its IPC channel's variables)
 * and no flags of the worker's. What it sends back is checked ({@link checkedParseResult}) before
 * it is used: a result that does not match is a report too, never findings.
 */
export function parseUnderBudget(request: ExtractRequest, budget: ParseBudget, signal?: AbortSignal): Promise<BudgetedFindings> {
  const byteLength = typeof request.output === "string" ? Buffer.byteLength(request.output, "utf8") : request.output.byteLength;
  if (byteLength <= IN_PLACE_BYTES) return Promise.resolve({ ok: true, value: extractFindings(request) });
  const size = `${formatBytes(byteLength)} of ${request.format}`;
  const notParsed = (why: string): BudgetedFindings => ({ ok: false, reason: `findings not parsed: ${size} ${why}` });
  const cancelled = "were not read: the review was cancelled";
  if (signal?.aborted === true) return Promise.resolve(notParsed(cancelled));
  return new Promise((resolve) => {
    const child = fork(CHILD_PATH, [], {
      execArgv: [
        `--max-old-space-size=${String(Math.max(1, Math.floor(budget.memoryBytes / MiB) - YOUNG_GENERATION_MB))}`,
        `--max-semi-space-size=${String(SEMI_SPACE_MB)}`,
      ],
      env: {},
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < STDERR_KEPT_BYTES) stderr += chunk.slice(0, STDERR_KEPT_BYTES - stderr.length);
    });
    let settled = false;
    const finish = (result: BudgetedFindings): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const refuse = (why: string) => {
      finish(notParsed(why));
    };
    const onAbort = () => {
      refuse(cancelled);
    };
    const timer = setTimeout(() => {
      refuse(`took more than ${String(budget.timeoutMs / 1000)} s`);
    }, budget.timeoutMs);
    child.once("message", (message: unknown) => {
      try {
        finish({ ok: true, value: checkedParseResult(message, request) });
      } catch (error) {
        refuse(`could not be read: the parser's result is malformed (${error instanceof Error ? error.message : "unknown"})`);
      }
    });
    // "on": a child process may emit more than one error (a failed send, a failed kill).
    child.on("error", (err: NodeJS.ErrnoException) => {
      refuse(`could not be read: the parser could not run (${err.code ?? err.name})`);
    });
    // stderr is read to its end before "close", so V8's report is whole by then.
    child.once("close", (code: number | null, exitSignal: NodeJS.Signals | null) => {
      if (stderr.includes(OUT_OF_HEAP)) refuse(`needed more than ${formatBytes(budget.memoryBytes)} of memory`);
      else refuse(`could not be read: the parser stopped without a result (${exitSignal ?? `exit ${String(code)}`})`);
    });
    child.send(request);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
