import { readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { extractFindings, type ExtractRequest } from "@reviewbot/review/findings/extract-findings";
import { IN_PLACE_BYTES, parseUnderBudget } from "@reviewbot/review/findings/parse-under-budget";
import { eventually } from "../sandbox/cancel-fixture.js";
import { withEventLoopLag } from "@reviewbot/core/testing/event-loop-lag";
import { hostProcessesMarked } from "../support/host-processes.js";
import { semgrepSarif } from "../support/semgrep-sarif.js";

const MiB = 1024 * 1024;
// The worst event-loop delay allowed while a parse process reads, and exceeded when the loop parses itself.
const LAG_BOUND_MS = 250;
const REQUEST: Omit<ExtractRequest, "output"> = {
  format: "sarif",
  helper: "semgrep",
  mountPoint: "/work",
  cwd: ".",
  secrets: ["secret-value-123"],
  maxFindings: 5_000,
};

// 8 MB of `[],`: valid JSON whose every three bytes are an array, so that JSON.parse builds
// 2.7 million objects (seconds of CPU, hundreds of MB of heap) before the parser sees a result.
const HOSTILE = `{"runs":[{"results":[${"[],".repeat(2_800_000)}[]]}]}`;
// Real-sized benign output: a 2.9 MB Semgrep-shaped log with 40 results.
const RESULTS = Array.from({ length: 40 }, (_, index) => ({ uri: `src/module_${String(index % 7)}.py`, line: index + 1, rule: index }));
const BENIGN = semgrepSarif(RESULTS, 2_900_000);

/** Parse processes alive on the host (tests run one file at a time, so these are this file's). */
const parseProcesses = () => hostProcessesMarked("parse-child.js");

describe("parsing a helper's output under a budget", () => {
  it("stops hostile output at the deadline and says so, while the event loop keeps ticking", async () => {
    const started = performance.now();
    const { result, maxLagMs } = await withEventLoopLag(() => parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 500, memoryBytes: 1024 * MiB }));
    expect(result).toEqual({ ok: false, reason: "findings not parsed: 8 MiB of sarif took more than 0.5 s" });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(maxLagMs).toBeLessThan(LAG_BOUND_MS);
    expect(await eventually(async () => (await parseProcesses()).length === 0, 500)).toBe(true);
  });

  it("(control) the parse process is seen while it runs: the check for one left behind can fail", async () => {
    const parsing = parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 30_000, memoryBytes: 1024 * MiB });
    expect(await eventually(async () => (await parseProcesses()).length === 1, 2_000)).toBe(true);
    // With 1 GiB it is read whole (2.8 million arrays, no findings), and its process is gone after.
    const result = await parsing;
    expect(result.ok && result.value.findings).toEqual([]);
    expect(await eventually(async () => (await parseProcesses()).length === 0, 2_000)).toBe(true);
  });

  it("gives the parse process none of the caller's environment: only Node's own IPC channel variables", async () => {
    // A credential as a worker holds one; fork would hand it down without `env: {}`.
    process.env.REVIEWBOT_TEST_CREDENTIAL = "ghs_parse_process_must_not_see";
    try {
      const parsing = parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 5_000, memoryBytes: 1024 * MiB });
      expect(await eventually(async () => (await parseProcesses()).length === 1, 2_000)).toBe(true);
      const [child] = await parseProcesses();
      const environ = await readFile(`/proc/${String(child?.pid)}/environ`, "utf8");
      // Read while it runs, so the names show the read works (an empty environ would prove nothing).
      expect(
        environ
          .split("\0")
          .filter(Boolean)
          .map((entry) => entry.split("=")[0])
          .sort(),
      ).toEqual(["NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"]);
      await parsing;
    } finally {
      delete process.env.REVIEWBOT_TEST_CREDENTIAL;
    }
  });

  it("stops hostile output at the memory ceiling and says so, while the event loop keeps ticking", async () => {
    const { result, maxLagMs } = await withEventLoopLag(() => parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 60_000, memoryBytes: 64 * MiB }));
    expect(result).toEqual({ ok: false, reason: "findings not parsed: 8 MiB of sarif needed more than 64 MiB of memory" });
    expect(maxLagMs).toBeLessThan(LAG_BOUND_MS);
  });

  // A worker thread at its resourceLimits was usually stopped cleanly, but now and then JSON.parse
  // allocated past V8's last allowance and the whole process aborted (CI lost a test file to it).
  it("ends every parse at the heap ceiling in its own process, never the caller's: eight at once, each reported", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 60_000, memoryBytes: 64 * MiB })),
    );
    expect(new Set(results.map((result) => (result.ok ? "read" : result.reason)))).toEqual(
      new Set(["findings not parsed: 8 MiB of sarif needed more than 64 MiB of memory"]),
    );
    expect(await parseProcesses()).toEqual([]);
  });

  it("(control) the same output read on the event loop blocks it past the bound: the lag measure can fail", async () => {
    // Between two ticks of the sampler, so that the one after the block measures it.
    const { result, maxLagMs } = await withEventLoopLag(async () => {
      await delay(50);
      const extracted = extractFindings({ ...REQUEST, output: HOSTILE });
      await delay(50);
      return extracted;
    });
    expect(result.findings).toEqual([]);
    expect(maxLagMs).toBeGreaterThan(LAG_BOUND_MS);
  });

  it("(control) reads benign real-sized output whole in the parse process, under the smallest budget that holds it", async () => {
    expect(BENIGN.length).toBeGreaterThan(2_900_000);
    const { result, maxLagMs } = await withEventLoopLag(() =>
      parseUnderBudget({ ...REQUEST, output: Buffer.from(BENIGN) }, { timeoutMs: 10_000, memoryBytes: 64 * MiB }),
    );
    if (!result.ok) throw new Error(result.reason);
    expect(result.value.findings.map((f) => [f.path, f.line, f.severity])).toEqual(
      RESULTS.map(({ uri, line, rule }) => [uri, line, rule % 3 === 0 ? "error" : "warning"]),
    );
    expect(result.value).toMatchObject({ problems: [], dropped: 0 });
    expect(maxLagMs).toBeLessThan(LAG_BOUND_MS);
  });

  it("keeps at most maxFindings in the parse process and counts the rest", async () => {
    const result = await parseUnderBudget({ ...REQUEST, maxFindings: 10, output: BENIGN }, { timeoutMs: 10_000, memoryBytes: 64 * MiB });
    expect(result.ok && [result.value.findings.length, result.value.dropped]).toEqual([10, 30]);
  });

  it("stops when the review is cancelled", async () => {
    const controller = new AbortController();
    const parsing = parseUnderBudget({ ...REQUEST, output: HOSTILE }, { timeoutMs: 60_000, memoryBytes: 1024 * MiB }, controller.signal);
    setTimeout(() => {
      controller.abort();
    }, 100);
    expect(await parsing).toEqual({ ok: false, reason: "findings not parsed: 8 MiB of sarif were not read: the review was cancelled" });
    expect(await eventually(async () => (await parseProcesses()).length === 0, 500)).toBe(true);
  });

  it("reads nothing for a review cancelled before the parse began", async () => {
    const result = await parseUnderBudget({ ...REQUEST, output: BENIGN }, { timeoutMs: 10_000, memoryBytes: 64 * MiB }, AbortSignal.abort());
    expect(result).toEqual({ ok: false, reason: "findings not parsed: 2.8 MiB of sarif were not read: the review was cancelled" });
  });

  it("reads small output in place, where no process is started (a budget it could not meet is not applied)", async () => {
    const small = semgrepSarif(RESULTS.slice(0, 1), 10_000);
    expect(small.length).toBeLessThanOrEqual(IN_PLACE_BYTES);
    const result = await parseUnderBudget({ ...REQUEST, output: small }, { timeoutMs: 0.001, memoryBytes: 32 * MiB });
    expect(result.ok && result.value.findings.map((f) => f.path)).toEqual(["src/module_0.py"]);
  });
});
