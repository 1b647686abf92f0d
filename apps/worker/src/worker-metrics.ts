import { Counter, Histogram, Registry } from "prom-client";
import type { ReviewTimings } from "@reviewbot/review/pipeline/report";
import type { RunObserver } from "@reviewbot/sandbox/sandbox-audit";

/** How a job left the processor. */
export type JobOutcome =
  "completed" | "answered" | "skipped" | "superseded" | "cancelled" | "timed-out" | "invalid" | "failed" | "retried" | "handed-back" | "deferred" | "busy";

export interface WorkerMetrics {
  readonly registry: Registry;
  observeTimings(timings: ReviewTimings): void;
  countJob(outcome: JobOutcome): void;
  /** The audited engine's observer: each sandbox run by engine and outcome. */
  readonly countSandboxRun: RunObserver;
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
 * stage, jobs by outcome, and sandbox runs by engine and outcome with timeouts and OOM kills.
 */
export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  const duration = new Histogram({
    name: "reviewbot_review_stage_duration_seconds",
    help: "Duration of each review stage (checkout, context, helpers, findings) and of the whole review.",
    labelNames: ["stage"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  const jobs = new Counter({ name: "reviewbot_worker_jobs_total", help: "Review jobs by outcome.", labelNames: ["outcome"], registers: [registry] });
  const runs = new Counter({
    name: "reviewbot_sandbox_runs_total",
    help: "Sandbox runs by engine and outcome (ok, nonzero, cancelled, timeout, oom, truncated, signal, engine-error).",
    labelNames: ["engine", "outcome"],
    registers: [registry],
  });
  const kills = {
    timeout: new Counter({
      name: "reviewbot_sandbox_timeouts_total",
      help: "Sandbox runs killed at their wall-clock deadline.",
      labelNames: ["engine"],
      registers: [registry],
    }),
    oom: new Counter({
      name: "reviewbot_sandbox_oom_kills_total",
      help: "Sandbox runs killed for exceeding their memory limit.",
      labelNames: ["engine"],
      registers: [registry],
    }),
  };
  return {
    registry,
    observeTimings(timings) {
      for (const [stage, key] of STAGES) duration.observe({ stage }, timings[key] / 1000);
    },
    countJob(outcome) {
      jobs.inc({ outcome });
    },
    countSandboxRun(engine, outcome) {
      runs.inc({ engine, outcome });
      if (outcome === "timeout" || outcome === "oom") kills[outcome].inc({ engine });
    },
  };
}
