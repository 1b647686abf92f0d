import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { LLM_ENV_FIELDS, refineLlmEnv, toLlmSettings, type LlmEnv, type LlmSettings } from "@reviewbot/llm/llm-settings";
import { SANDBOX_MODES, type SandboxMode } from "@reviewbot/policy/sandbox-mode";
import { FILTER_MODES, type FilterMode } from "@reviewbot/review/findings/diff-filter";
import { ENGINE_CHOICES, type EngineChoiceSetting } from "@reviewbot/runtime/runtime-config";
import { FAIL_LEVELS, type FailLevel } from "@reviewbot/review/render/fail-level";
import { REPORT_FORMATS, type ReportFormat } from "@reviewbot/review/render/render-report";
import { readActionInput } from "./action-input.js";
import { SarifInputPaths } from "./sarif-input-paths.js";

/**
 * The model inputs and the REVIEWBOT_LLM_* setting each one is: the action takes the CLI's and the
 * api's model settings under input names, checked by the same fields and cross-checks.
 */
const LLM_INPUTS = {
  "llm-protocol": "REVIEWBOT_LLM_PROTOCOL",
  "llm-base-url": "REVIEWBOT_LLM_BASE_URL",
  "llm-model": "REVIEWBOT_LLM_MODEL",
  "llm-api-key": "REVIEWBOT_LLM_API_KEY",
  "llm-max-tokens": "REVIEWBOT_LLM_MAX_TOKENS",
  "llm-context-tokens": "REVIEWBOT_LLM_CONTEXT_TOKENS",
  "llm-job-tokens": "REVIEWBOT_LLM_JOB_TOKENS",
  "llm-job-spend-usd": "REVIEWBOT_LLM_JOB_SPEND_USD",
  "llm-prices": "REVIEWBOT_LLM_PRICES",
} as const satisfies Readonly<Record<string, keyof LlmEnv>>;

const ActionInputs = z
  .object({
    "github-token": z.string().regex(/^[\x21-\x7e]{1,4096}$/, "must be a token (printable ASCII, no spaces)"),
    "fail-level": z.enum(FAIL_LEVELS).default("error"),
    "filter-mode": z.enum(FILTER_MODES).default("added"),
    "report-file": z.string().min(1).optional(),
    format: z.enum(REPORT_FORMATS).default("text"),
    "sarif-file": z.string().min(1).optional(),
    sandbox: z.enum(SANDBOX_MODES).default("require"),
    engine: z.enum(ENGINE_CHOICES).default("auto"),
    "pull-request": z.coerce.number().int().positive().optional(),
    "image-cache": z.string().min(1).optional(),
    "sarif-input": SarifInputPaths.optional(),
  })
  .strict();

/** The model inputs as the REVIEWBOT_LLM_* settings they are, with their defaults and cross-checks. */
const LlmInputs = z.object(LLM_ENV_FIELDS).superRefine(refineLlmEnv);

export interface ActionSettings {
  readonly token: string;
  readonly failLevel: FailLevel;
  readonly filterMode: FilterMode;
  readonly report?: { readonly path: string; readonly format: ReportFormat };
  readonly sarifFile?: string;
  readonly sandbox: SandboxMode;
  readonly engine: EngineChoiceSetting;
  /** The PR a `workflow_dispatch` run reviews. */
  readonly pullRequest?: number;
  /** A directory the workflow keeps with actions/cache: the saved helper images (helper-images.ts). */
  readonly imageCache?: string;
  /** Code scanners' SARIF files an earlier step wrote, relative to GITHUB_WORKSPACE (read-sarif-inputs.ts). */
  readonly sarifInput: readonly string[];
  readonly llm: LlmSettings;
}

const INPUT_NAMES = Object.keys(ActionInputs.shape);
/** Every input the action reads: `action.yml` declares exactly these. */
export const ACTION_INPUTS: readonly string[] = [...INPUT_NAMES, ...Object.keys(LLM_INPUTS)];
const INPUT_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(LLM_INPUTS).map(([input, variable]) => [variable, input]));

/**
 * The action's inputs (`INPUT_<NAME>`, see readActionInput) as one frozen settings object. A bad
 * input fails with a message naming the input and never its value (the key is one of them).
 *
 * @throws AppError `CONFIG_INVALID` naming every bad input.
 */
export function loadActionSettings(env: NodeJS.ProcessEnv): ActionSettings {
  const given = (names: Readonly<Record<string, string>>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(names).flatMap(([input, key]) => {
        const value = readActionInput(env, input);
        return value === undefined ? [] : [[key, value]];
      }),
    );
  const parsed = ActionInputs.safeParse(given(Object.fromEntries(INPUT_NAMES.map((name) => [name, name]))));
  const llm = LlmInputs.safeParse(given(LLM_INPUTS));
  const issues = [...(parsed.error?.issues ?? []), ...(llm.error?.issues ?? [])];
  if (!parsed.success || !llm.success) throw invalid(issues);
  const inputs = parsed.data;
  const report = inputs["report-file"];
  return Object.freeze({
    token: inputs["github-token"],
    failLevel: inputs["fail-level"],
    filterMode: inputs["filter-mode"],
    ...(report === undefined ? {} : { report: { path: report, format: inputs.format } }),
    ...(inputs["sarif-file"] === undefined ? {} : { sarifFile: inputs["sarif-file"] }),
    sandbox: inputs.sandbox,
    engine: inputs.engine,
    ...(inputs["pull-request"] === undefined ? {} : { pullRequest: inputs["pull-request"] }),
    ...(inputs["image-cache"] === undefined ? {} : { imageCache: inputs["image-cache"] }),
    sarifInput: inputs["sarif-input"] ?? [],
    llm: toLlmSettings(llm.data),
  });
}

/** One line per issue, naming the input (a cross-check's REVIEWBOT_LLM_* name turned back into one). */
function invalid(issues: readonly z.core.$ZodIssue[]): AppError {
  const lines = issues.map((issue) => {
    const key = String(issue.path[0] ?? "");
    const input = INPUT_OF[key] ?? key;
    const message = issue.message.replace(/REVIEWBOT_LLM_[A-Z_]+/g, (name) => INPUT_OF[name] ?? name);
    return `input \`${input}\`: ${message}`;
  });
  return new AppError("CONFIG_INVALID", lines.join("; "));
}
