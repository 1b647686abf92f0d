import { configError, type CheckResult, type ConfigError } from "./config-error.js";
import type { OperatorLimits } from "./operator-policy.js";

const MiB = 1024 * 1024;

/** The resources a helper may ask for, in the units (and key names) of `.ai/review-tools.json`. */
export interface ResourceRequests {
  readonly timeout_seconds?: number | undefined;
  readonly memory_mb?: number | undefined;
  readonly cpus?: number | undefined;
  readonly pids?: number | undefined;
}

/** The limits one helper run gets: the operator's ceilings, narrowed by the helper's requests. */
export type HelperLimits = Readonly<Omit<OperatorLimits, "concurrency">>;

/** Narrowed limits, and one warning per request that was clamped to its ceiling. */
export interface NarrowedLimits {
  readonly limits: HelperLimits;
  readonly warnings: readonly string[];
}

interface RequestRule {
  readonly key: keyof ResourceRequests;
  readonly limit: "timeoutSeconds" | "memoryBytes" | "cpus" | "pids";
  /** Ceiling units per requested unit (bytes per MiB). */
  readonly scale: number;
  readonly integer: boolean;
  readonly min: number;
  readonly unit: string;
}

const RULES: readonly RequestRule[] = [
  { key: "timeout_seconds", limit: "timeoutSeconds", scale: 1, integer: true, min: 1, unit: " s" },
  { key: "memory_mb", limit: "memoryBytes", scale: MiB, integer: true, min: 1, unit: " MiB" },
  // Docker and Podman refuse fewer than 0.01 CPUs.
  { key: "cpus", limit: "cpus", scale: 1, integer: false, min: 0.01, unit: "" },
  { key: "pids", limit: "pids", scale: 1, integer: true, min: 1, unit: "" },
];

/**
 * The operator's ceilings that bound one helper run: all of them but `concurrency`, which counts
 * helpers per review.
 */
export function helperCeilings(limits: OperatorLimits): HelperLimits {
  const { timeoutSeconds, memoryBytes, cpus, pids, outputBytes, tmpfsBytes, nofile, fsizeBytes } = limits;
  return { timeoutSeconds, memoryBytes, cpus, pids, outputBytes, tmpfsBytes, nofile, fsizeBytes };
}

/**
 * The operator sets ceilings; a repository may ask for less, never more. Decision: a request
 * above its ceiling is **clamped** to the ceiling and a warning naming the field, the requested
 * and the granted value is returned, so the review still runs and its report says what was
 * reduced. A request that is not a finite number, not positive, below the engine's minimum, or
 * fractional where a whole number is required is **rejected** as a config error.
 *
 * @param field the path of the helper in the config, for messages (`helpers[2]`).
 */
export function narrowLimits(requests: ResourceRequests, ceilings: OperatorLimits, field: string): CheckResult<NarrowedLimits> {
  const limits = { ...helperCeilings(ceilings) };
  const errors: ConfigError[] = [];
  const warnings: string[] = [];
  for (const rule of RULES) {
    const requested = requests[rule.key];
    if (requested === undefined) continue;
    const path = `${field}.${rule.key}`;
    const problem = requestProblem(requested, rule);
    if (problem !== undefined) {
      errors.push(configError(path, problem));
      continue;
    }
    const ceiling = ceilings[rule.limit];
    limits[rule.limit] = Math.min(requested * rule.scale, ceiling);
    if (requested * rule.scale > ceiling) {
      const granted = `${ceiling / rule.scale}${rule.unit}`;
      warnings.push(`${path}: requested ${requested}${rule.unit}, above the operator ceiling; granted ${granted}`);
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { limits: Object.freeze(limits), warnings } };
}

function requestProblem(requested: number, rule: RequestRule): string | undefined {
  if (!Number.isFinite(requested)) return `${requested} is not a finite number`;
  if (requested <= 0) return `${requested} is not positive`;
  if (rule.integer && !Number.isInteger(requested)) return `${requested} is not a whole number`;
  if (requested < rule.min) return `${requested} is below the minimum of ${rule.min}`;
  return undefined;
}
