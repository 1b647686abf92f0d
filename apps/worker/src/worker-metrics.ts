import { Counter, Histogram, Registry } from "prom-client";
import type { ReviewTimings } from "@reviewbot/review/pipeline/report";
import type { SandboxCounters } from "@reviewbot/sandbox/sandbox-audit";

/** How a job left the processor. */
export type JobOutcome = "completed" | "answered" | "skipped" | "superseded" | "cancelled" | "timed-out" | "invalid" | "failed" | "retried" | "handed-back" | "deferred" | "busy";

export interface WorkerMetrics {
  readonly registry: Registry;
  observeTimings(timings: ReviewTimings): void;
  countJob(outcome: JobOutcome): void;
}

const STAGES = [
  ["checkout", "checkoutMs"],
  ["context", "contextMs"],
  ["helpers", "helpersMs"],
  ["findings", "findingsMs"],
  ["ai", "aiMs"],
  ["total", "totalMs"],
] as const satisfies readonly (readonly [string, keyof ReviewTimings])[];

/**
 * The worker's Prometheus metrics on a registry of its own (no global state): review duration by
 * stage, jobs by outcome, and sandbox runs by engine and outcome with timeouts and OOM kills,
 * read from the audited engine's counters at scrape time.
 */
export function createWorkerMetrics(sandbox: SandboxCounters): WorkerMetrics {
  const registry = new Registry();
  const duration = new Histogram({
    name: "reviewbot_review_stage_duration_seconds",
    help: "Duration of each review stage (checkout, context, helpers, findings) and of the whole review.",
    labelNames: ["stage"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const jobs = new Counter({ name: "reviewbot_worker_jobs_total", help: "Review jobs by outcome.", labelNames: ["outcome"], registers: [registry] });
  const snapshot = (keep: (outcome: string) => boolean) => sandbox.snapshot().filter((entry) => keep(entry.outcome));
  // Counters filled from the audit counters at scrape time: reset, then set to the running totals.
  new Counter({
    name: "reviewbot_sandbox_runs_total",
    help: "Sandbox runs by engine and outcome (ok, nonzero, cancelled, timeout, oom, truncated, signal, engine-error).",
    labelNames: ["engine", "outcome"],
    registers: [registry],
    collect() {
      this.reset();
      for (const { engine, outcome, count } of snapshot(() => true)) this.inc({ engine, outcome }, count);
    },
  });
  for (const [name, outcome, help] of [
    ["reviewbot_sandbox_timeouts_total", "timeout", "Sandbox runs killed at their wall-clock deadline."],
    ["reviewbot_sandbox_oom_kills_total", "oom", "Sandbox runs killed for exceeding their memory limit."],
  ] as const) {
    new Counter({
      name,
      help,
      labelNames: ["engine"],
      registers: [registry],
      collect() {
        this.reset();
        for (const entry of snapshot((o) => o === outcome)) this.inc({ engine: entry.engine }, entry.count);
      },
    });
  }
  return {
    registry,
    observeTimings(timings) {
      for (const [stage, key] of STAGES) duration.observe({ stage }, timings[key] / 1000);
    },
    countJob(outcome) {
      jobs.inc({ outcome });
    },
  };
}
