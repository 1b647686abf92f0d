import { AppError } from "@reviewbot/core/errors";
import { DEFAULT_THRESHOLDS, type CompareThresholds } from "@reviewbot/review/eval/compare-results";
import type { EvalFormat } from "@reviewbot/review/eval/render-eval";

export interface EvalArgs {
  readonly suite: string;
  readonly repeat: number;
  readonly window: number;
  readonly format: EvalFormat;
  /** Where scored reviews are kept between runs; default `$XDG_CACHE_HOME/reviewbot/eval`. */
  readonly cacheDir: string | undefined;
  /** An earlier `--format json` result to gate on. */
  readonly compare: string | undefined;
  readonly thresholds: CompareThresholds;
}

/** `eval`'s own options (parseArgs' form), merged into the command line's. */
export const EVAL_OPTIONS = {
  suite: { type: "string" },
  repeat: { type: "string", default: "3" },
  window: { type: "string", default: "3" },
  "cache-dir": { type: "string" },
  compare: { type: "string" },
  "max-recall-drop": { type: "string" },
  "max-precision-drop": { type: "string" },
  "max-fp-rise": { type: "string" },
  "max-cost-rise": { type: "string" },
} as const;

type EvalValues = { readonly [K in keyof typeof EVAL_OPTIONS]?: string | undefined } & { readonly format?: string | undefined };

/** The eval command's arguments; every number checked, every error naming its option. */
export function evalArgs(values: EvalValues): EvalArgs {
  if (values.suite === undefined) throw new AppError("USAGE", "--suite is required");
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json" && format !== "markdown")
    throw new AppError("USAGE", `--format must be one of text, json, markdown, not "${format}"`);
  const threshold = (option: keyof typeof EVAL_OPTIONS, fallback: number): number =>
    values[option] === undefined ? fallback : number(option, values[option], 0, 100);
  return {
    suite: values.suite,
    repeat: number("repeat", values.repeat ?? "3", 1, 100, true),
    window: number("window", values.window ?? "3", 0, 10_000, true),
    format,
    cacheDir: values["cache-dir"],
    compare: values.compare,
    thresholds: {
      maxRecallDrop: threshold("max-recall-drop", DEFAULT_THRESHOLDS.maxRecallDrop),
      maxPrecisionDrop: threshold("max-precision-drop", DEFAULT_THRESHOLDS.maxPrecisionDrop),
      maxFalsePositiveRise: threshold("max-fp-rise", DEFAULT_THRESHOLDS.maxFalsePositiveRise),
      maxCostRise: threshold("max-cost-rise", DEFAULT_THRESHOLDS.maxCostRise),
    },
  };
}

function number(option: string, text: string, min: number, max: number, integer = false): number {
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new AppError("USAGE", `--${option} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, not "${text}"`);
  }
  return value;
}
