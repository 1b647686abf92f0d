import { parseArgs } from "node:util";
import { AppError } from "@reviewbot/core/errors";
import { FILTER_MODES, type FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { CheckoutArgs } from "./checkout-command.js";
import { EVAL_OPTIONS, evalArgs, type EvalArgs } from "./eval-command-line.js";
import { ENGINE_CHOICES, type EngineChoiceSetting } from "@reviewbot/runtime/runtime-config";
import type { FleetArgs } from "./fleet-command.js";
import type { FailLevel } from "@reviewbot/review/render/fail-level";
import type { ReviewArgs } from "./review-command.js";
import type { SubmitArgs } from "./submit-review.js";
import type { WorkerCredentialArgs } from "./worker-credential-command.js";

/** Each command's synopsis and description, as `reviewbot <command> --help` prints it. */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  review: `  review   --repo <path-or-url> --base <ref> --head <ref> [--config-ref <ref>]
           [--engine auto|podman|docker|bwrap|none] [--format text|json|sarif] [--output <file>]
           [--filter-mode added|diff_context|file|nofilter] [--fail-level none|notice|warning|error]
             review the PR head against the base: helpers from the trusted .ai/ (the head of
             --config-ref, e.g. the default branch; without it the base's), each in a sandbox,
             then the AI review when REVIEWBOT_LLM_BASE_URL is set; exit 1 when a finding
             (a helper's or the model's) reaches --fail-level (default error), 2 on errors
`,
  eval: `  eval     --suite <dir> [--repeat N] [--window N] [--format text|json|markdown] [--output <file>]
           [--cache-dir <dir>] [--engine auto|podman|docker|bwrap|none]
           [--compare <result.json> [--max-recall-drop 0.05] [--max-precision-drop 0.05]
            [--max-fp-rise 0.1] [--max-cost-rise 0.25]]
             review every case of the suite --repeat times (default 3) with the configured
             model and score the findings against the known ones (docs/quality.md); with
             --compare, exit 1 when a figure moved past its threshold
`,
  checkout: `  checkout --repo <path-or-url> --base <ref> --head <ref> [--config-ref <ref>] [--format text|json]
             fetch both sides into the clone cache, apply the trusted .ai/ overlay, print the diff
`,
  doctor: `  doctor     probe every configured sandbox engine from inside a sandbox; exit 1 when the
             configured sandbox mode cannot be met
`,
  llm: `  llm doctor
             show the REVIEWBOT_LLM_* model settings (not the key) and probe the endpoint: a plain
             call, one tool-call round trip, the context window as configured; exit 1 when a
             step fails or no model is configured
`,
  submit: `  submit   --repo-dir <dir> --repository <owner/name> --pull <n> --base <branch> --head <ref>
           [--default-branch <branch>]
             enqueue a review of the local repository <dir>/<owner/name> on the queue of
             REDIS_URL (or REDIS_SENTINELS, or REDIS_CLUSTER_NODES), as the api does: needs its
             Redis user and REVIEWBOT_WEBHOOK_SECRET; the worker takes .ai/ from the head of
             --default-branch (default: --base)
`,
  "worker-credential": `  worker-credential <name> [--registry <file>]
             print a new worker credential (<name>.<secret>) and add its hash to the api's
             REVIEWBOT_WORKERS_FILE; delete the line to revoke the worker
`,
  fleet: `  fleet    [--keep-running | --exit] [--engine auto|podman|docker|bwrap]
             the embedded defaults: a private Redis (unless REDIS_URL, REDIS_SENTINELS or
             REDIS_CLUSTER_NODES is set), the API with a local sink and one worker; reviews the
             bundled sample through the queue, prints the result and the dashboard's address;
             stays up on a terminal until Ctrl-C; --engine is the worker's sandbox engine
             (docker: its own private dockerd, as root)
`,
};

export const USAGE = `usage: reviewbot <command> [options]
       reviewbot [<command>] --help | --version

${Object.values(COMMAND_HELP).join("")}
Settings come from the environment (REVIEWBOT_*, REDIS_URL, REDIS_SENTINELS or
REDIS_CLUSTER_NODES; README.md lists them all).
`;

/** `--engine`: REVIEWBOT_ENGINE's choices, or `none`, the explicit escape hatch of REVIEWBOT_SANDBOX=off. */
const ENGINE_OPTION = [...ENGINE_CHOICES, "none"] as const;
export type EngineChoice = (typeof ENGINE_OPTION)[number];

export type Command =
  | { readonly name: "help"; readonly text: string }
  | { readonly name: "version" }
  | { readonly name: "review"; readonly args: ReviewArgs; readonly engine: EngineChoice | undefined; readonly output: string | undefined }
  | { readonly name: "eval"; readonly args: EvalArgs; readonly engine: EngineChoice | undefined; readonly output: string | undefined }
  | { readonly name: "checkout"; readonly args: CheckoutArgs }
  | { readonly name: "doctor" }
  | { readonly name: "llm-doctor" }
  | { readonly name: "submit"; readonly args: SubmitArgs }
  | { readonly name: "fleet"; readonly args: FleetArgs }
  | { readonly name: "worker-credential"; readonly args: WorkerCredentialArgs };

const OPTIONS = {
  repo: { type: "string" },
  base: { type: "string" },
  head: { type: "string" },
  "config-ref": { type: "string" },
  format: { type: "string" },
  engine: { type: "string" },
  output: { type: "string" },
  "filter-mode": { type: "string", default: "added" },
  "fail-level": { type: "string", default: "error" },
  "repo-dir": { type: "string" },
  repository: { type: "string" },
  pull: { type: "string" },
  "default-branch": { type: "string" },
  "keep-running": { type: "boolean" },
  exit: { type: "boolean" },
  registry: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  ...EVAL_OPTIONS,
} as const;

/** Parses argv strictly; anything unexpected is a USAGE error naming it. */
export function parseCommandLine(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (err) {
    throw new AppError("USAGE", err instanceof Error ? err.message : String(err));
  }
  const [name, ...rest] = parsed.positionals;
  if (parsed.values.version === true) return { name: "version" };
  if (parsed.values.help === true || name === "help") return { name: "help", text: helpText(name === "help" ? rest[0] : name) };
  if (name === "worker-credential") return { name, args: workerCredentialArgs(rest, parsed.values.registry) };
  if (name === "llm") {
    if (rest.length !== 1 || rest[0] !== "doctor") throw new AppError("USAGE", "llm takes one subcommand: doctor");
    return { name: "llm-doctor" };
  }
  if (rest.length > 0) throw new AppError("USAGE", `unexpected argument "${rest.join(" ")}"`);
  if (name === "doctor") return { name };
  if (name === "fleet") return { name, args: fleetArgs(parsed.values["keep-running"], parsed.values.exit, parsed.values.engine) };
  if (name === "submit") return { name, args: submitArgs(parsed.values) };
  if (name === "eval") return { name, args: evalArgs(parsed.values), engine: engineOf(parsed.values.engine), output: parsed.values.output };
  if (name !== "checkout" && name !== "review") {
    throw new AppError("USAGE", name === undefined ? "no command given" : `unknown command "${name}"`);
  }
  const { repo, base, head } = parsed.values;
  if (repo === undefined || base === undefined || head === undefined) throw new AppError("USAGE", "--repo, --base and --head are required");
  const configRef = parsed.values["config-ref"];
  const sides = { repo, base, head, ...(configRef === undefined ? {} : { configRef }) };
  if (name === "checkout") return { name, args: { ...sides, format: oneOf("--format", parsed.values.format ?? "text", ["text", "json"]) } };
  return {
    name,
    args: {
      ...sides,
      format: oneOf("--format", parsed.values.format ?? "text", ["text", "json", "sarif"]),
      filterMode: oneOf<FilterMode>("--filter-mode", parsed.values["filter-mode"], FILTER_MODES),
      failLevel: oneOf<FailLevel>("--fail-level", parsed.values["fail-level"], ["none", "notice", "warning", "error"]),
    },
    engine: engineOf(parsed.values.engine),
    output: parsed.values.output,
  };
}

function engineOf(engine: string | undefined): EngineChoice | undefined {
  return engine === undefined ? undefined : oneOf<EngineChoice>("--engine", engine, ENGINE_OPTION);
}

// The whole usage, or one command's part of it; an unknown command is a usage error.
function helpText(command: string | undefined): string {
  if (command === undefined) return USAGE;
  const text = COMMAND_HELP[command];
  if (text === undefined) throw new AppError("USAGE", `unknown command "${command}"`);
  return `usage: reviewbot ${command === "llm" ? "llm doctor" : command} [options]\n\n${text}`;
}

function oneOf<T extends string>(option: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new AppError("USAGE", `${option} must be one of ${allowed.join(", ")}, not "${value}"`);
}

function fleetArgs(keepRunning: boolean | undefined, exit: boolean | undefined, engine: string | undefined): FleetArgs {
  if (keepRunning === true && exit === true) throw new AppError("USAGE", "--keep-running and --exit exclude each other");
  return {
    keepRunning: keepRunning === true ? true : exit === true ? false : undefined,
    ...(engine === undefined ? {} : { engine: oneOf<EngineChoiceSetting>("--engine", engine, ENGINE_CHOICES) }),
  };
}

function workerCredentialArgs(positionals: readonly string[], registry: string | undefined): WorkerCredentialArgs {
  const [worker, ...extra] = positionals;
  if (worker === undefined || extra.length > 0) throw new AppError("USAGE", "worker-credential takes one worker name");
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(worker)) throw new AppError("USAGE", `the worker name must be lower-case letters, digits and dashes, not "${worker}"`);
  return { worker, registry };
}

function submitArgs(values: { "repo-dir"?: string; repository?: string; pull?: string; base?: string; head?: string; "default-branch"?: string }): SubmitArgs {
  const { "repo-dir": repoDir, repository, pull, base, head, "default-branch": defaultBranch } = values;
  if (repoDir === undefined || repository === undefined || pull === undefined || base === undefined || head === undefined) {
    throw new AppError("USAGE", "--repo-dir, --repository, --pull, --base and --head are required");
  }
  if (!/^[1-9]\d{0,8}$/.test(pull)) throw new AppError("USAGE", `--pull must be a positive number, not "${pull}"`);
  return { repoDir, repository, pullNumber: Number(pull), base, head, ...(defaultBranch === undefined ? {} : { defaultBranch }) };
}
