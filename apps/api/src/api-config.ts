import { z } from "zod";
import { parseEnvConfig } from "@reviewbot/core/env-config";
import { LogLevel } from "@reviewbot/contracts/log-level";
import { MAX_AI_ATTEMPTS } from "@reviewbot/contracts/review-job";
import { REDIS_ENV_FIELDS, redisTargetOf } from "@reviewbot/queue/redis-target";
import { REDIS_KEYSPACE_ENV_FIELDS } from "@reviewbot/queue/redis-keyspace";
import { AI_REPORT_MARGIN_MS } from "@reviewbot/contracts/worker-protocol";
import { LLM_ENV_FIELDS, refineLlmEnv, type LlmEnv } from "@reviewbot/llm/llm-settings";
import { Severity } from "@reviewbot/contracts/severity";
import { CEILING_CHOICES, COMMAND_ASSOCIATIONS, PULL_REQUEST_ACTIONS } from "./webhooks/decide-delivery.js";
import { isIP } from "node:net";
import {
  DEFAULT_WEBHOOK_BODY_DEADLINE_MS,
  DEFAULT_WEBHOOK_CONCURRENT_READS,
  DEFAULT_WEBHOOK_MIN_BYTES_PER_SECOND,
  DEFAULT_WEBHOOK_READS_PER_SOURCE,
} from "./webhooks/body-read-slots.js";

/** https://docs.github.com/en/webhooks/webhook-events-and-payloads#payload-cap */
const GITHUB_MAX_PAYLOAD_BYTES = 26_214_400;

const positiveInt = z.coerce.number().int().positive();
const port = z.coerce.number().int().min(0).max(65_535);
const optionalText = z.string().min(1).optional();

/** A comma list drawn from `allowed` (default: all of it); an unknown entry names the choices. */
function subsetOf<T extends string>(allowed: readonly T[]) {
  return z
    .string()
    .default(allowed.join(","))
    .transform((value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry.length > 0),
    )
    .pipe(z.array(z.enum(allowed as [T, ...T[]], { error: `each entry must be one of ${allowed.join(", ")}` })).min(1));
}

/** Comma list, trimmed, empties dropped, compared case-insensitively (GitHub logins are). */
const loginList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((login) => login.trim().toLowerCase())
      .filter((login) => login.length > 0),
  );

/** Express's names for the private ranges; anything else must be an address or an address/prefix. */
const PROXY_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** The proxies trusted to name the client in X-Forwarded-For: a comma list, empty (none) by default. */
const proxyList = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0),
  )
  .pipe(z.array(z.string().refine(isProxyEntry, { error: "each entry must be an IP address, address/prefix, loopback, linklocal or uniquelocal" })));

/**
 * The API's variables. Every REVIEWBOT_* variable must be known here (a typo is an error, not a
 * silent default); the other names are the agreed common ones.
 */
const ApiVariables = z
  .object({
    ...REDIS_ENV_FIELDS,
    ...REDIS_KEYSPACE_ENV_FIELDS,
    REVIEWBOT_LOG_LEVEL: LogLevel.default("info"),
    REVIEWBOT_HOST: z.string().min(1).default("127.0.0.1"),
    REVIEWBOT_PORT: port.default(3000),
    // GitHub signs with this; shorter secrets are guessable offline from one signed delivery.
    REVIEWBOT_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters"),
    // GitHub caps payloads at 25 MiB: nothing larger is a delivery, so it is the ceiling too.
    REVIEWBOT_WEBHOOK_MAX_BYTES: positiveInt.max(GITHUB_MAX_PAYLOAD_BYTES).default(GITHUB_MAX_PAYLOAD_BYTES),
    // Bodies are held whole until their HMAC is checked: this × MAX_BYTES bounds the unverified bytes held.
    REVIEWBOT_WEBHOOK_MAX_CONCURRENT_READS: positiveInt.max(256).default(DEFAULT_WEBHOOK_CONCURRENT_READS),
    // One address may not hold every slot: reads plus waits from one address (see REVIEWBOT_TRUST_PROXY).
    REVIEWBOT_WEBHOOK_READS_PER_SOURCE: positiveInt.max(256).default(DEFAULT_WEBHOOK_READS_PER_SOURCE),
    // A body must arrive within this (and a request waits at most this long for a slot): below GitHub's 10 s.
    REVIEWBOT_WEBHOOK_BODY_DEADLINE_MS: positiveInt.min(1000).max(30_000).default(DEFAULT_WEBHOOK_BODY_DEADLINE_MS),
    // Every second of a body must bring at least this much, or the sender is cut off and its slot freed.
    REVIEWBOT_WEBHOOK_MIN_BYTES_PER_SECOND: positiveInt.max(104_857_600).default(DEFAULT_WEBHOOK_MIN_BYTES_PER_SECOND),
    // Proxies whose X-Forwarded-For names the client (per-address limits, logs); none by default.
    REVIEWBOT_TRUST_PROXY: proxyList,
    // Replicas that must hold a delivery before its 202 (WAIT); unset: as many as are connected, at most 1.
    REVIEWBOT_REDIS_MIN_REPLICAS: z.coerce.number().int().min(0).max(16).optional(),
    // WAIT's bound: past it the delivery is answered 503 and left for the redelivery sweep.
    REVIEWBOT_REDIS_WAIT_MS: positiveInt.max(2000).default(100),
    // The redelivery sweep (apps/api/src/redelivery/): its period (0: off; off without an App key),
    // how far back it looks (GitHub keeps deliveries for 3 days) and how many it asks for per run.
    REVIEWBOT_REDELIVERY_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
    REVIEWBOT_REDELIVERY_LOOKBACK_MS: positiveInt.min(60_000).max(259_200_000).default(86_400_000),
    REVIEWBOT_REDELIVERY_MAX_PER_RUN: positiveInt.max(1000).default(20),
    GITHUB_APP_ID: positiveInt.optional(),
    GITHUB_PRIVATE_KEY: optionalText,
    GITHUB_PRIVATE_KEY_FILE: optionalText,
    GITHUB_API_URL: z.url().default("https://api.github.com"),
    // `<name> <sha256-hex>` per worker (reviewbot worker-credential); re-read when it changes.
    REVIEWBOT_WORKERS_FILE: optionalText,
    // A worker's repository token is revoked this long after it was minted, if its job has not ended before.
    REVIEWBOT_JOB_TOKEN_TTL_MS: positiveInt.min(60_000).max(3_600_000).default(900_000),
    REVIEWBOT_REPORT_MAX_BYTES: positiveInt.max(268_435_456).default(16_777_216),
    // Reviews one installation may run at once across the fleet, counted by the api when a worker
    // claims (workers are untrusted).
    REVIEWBOT_INSTALLATION_CONCURRENCY: positiveInt.max(10_000).default(4),
    // A claimed job's slot frees itself this long after the claim if nothing freed it first: not below the workers' review deadline.
    REVIEWBOT_INSTALLATION_SLOT_TTL_MS: positiveInt.min(60_000).max(86_400_000).default(1_800_000),
    // An AI review that met an unavailable model endpoint is retried alone this many times, the
    // first after the delay, each later one after twice the wait before it; 0: never.
    REVIEWBOT_AI_RETRY_ATTEMPTS: z.coerce.number().int().min(0).max(MAX_AI_ATTEMPTS).default(5),
    REVIEWBOT_AI_RETRY_DELAY_MS: positiveInt.min(1000).max(86_400_000).default(300_000),
    REVIEWBOT_DASHBOARD_USER: z.string().min(1).default("admin"),
    REVIEWBOT_DASHBOARD_PASSWORD: z.string().min(12, "must be at least 12 characters").optional(),
    REVIEWBOT_SINK: z.enum(["github", "local"]).default("github"),
    REVIEWBOT_LOCAL_SINK_DIR: optionalText,
    // Helper findings as inline comments too (AI comments always go inline); unset: on when a model is configured.
    REVIEWBOT_REVIEW_COMMENTS: z.enum(["on", "off"]).optional(),
    // Ceilings on the repositories' .ai/review-config.json: `never` ignores drafts / Apps' PRs at the
    // webhook; `repository` lets the settings decide (reviewDrafts, botPullRequests).
    REVIEWBOT_DRAFTS: z.enum(CEILING_CHOICES).default("repository"),
    REVIEWBOT_BOT_PULL_REQUESTS: z.enum(CEILING_CHOICES).default("never"),
    // The least severe finding that may go inline whatever a repository's minInlineSeverity says.
    REVIEWBOT_MIN_INLINE_SEVERITY: Severity.default("notice"),
    REVIEWBOT_BOT_LOGINS: loginList,
    REVIEWBOT_REVIEW_COMMAND: z
      .string()
      .regex(/^\S{1,100}$/, "must be one word without spaces")
      .default("/review"),
    REVIEWBOT_PR_ACTIONS: subsetOf(PULL_REQUEST_ACTIONS),
    REVIEWBOT_COMMAND_ASSOCIATIONS: subsetOf(COMMAND_ASSOCIATIONS),
    // The model broker: the api alone holds the model's key, as it holds the App key.
    ...LLM_ENV_FIELDS,
    // Model calls one installation may have in flight at once across the fleet (a job: one).
    REVIEWBOT_LLM_INSTALLATION_CONCURRENCY: positiveInt.max(1000).default(4),
  })
  .strict()
  .superRefine((config, ctx) => {
    refineLlmEnv(config, ctx);
    refineLifetimes(config, ctx);
  });

/**
 * Lifetimes that must fit each other, refused together at start rather than failing every review:
 * - a job's token must outlive the worker's report margin ({@link AI_REPORT_MARGIN_MS}: the AI
 *   loop ends that long before the token does) by at least one model call's deadline, or every
 *   AI review ends partial before its first answer;
 * - an installation slot must outlive the job's token: a job that still holds a live token is
 *   still running, and freeing its slot first lets the installation run more than its limit.
 */
function refineLifetimes(
  config: Pick<LlmEnv, "REVIEWBOT_LLM_BASE_URL" | "REVIEWBOT_LLM_TIMEOUT_MS"> & {
    readonly REVIEWBOT_JOB_TOKEN_TTL_MS: number;
    readonly REVIEWBOT_INSTALLATION_SLOT_TTL_MS: number;
  },
  ctx: z.RefinementCtx,
): void {
  const tokenTtl = config.REVIEWBOT_JOB_TOKEN_TTL_MS;
  if (config.REVIEWBOT_LLM_BASE_URL !== undefined && tokenTtl < AI_REPORT_MARGIN_MS + config.REVIEWBOT_LLM_TIMEOUT_MS) {
    ctx.addIssue({
      code: "custom",
      path: ["REVIEWBOT_JOB_TOKEN_TTL_MS"],
      message: `must be at least REVIEWBOT_LLM_TIMEOUT_MS + ${AI_REPORT_MARGIN_MS} ms (${AI_REPORT_MARGIN_MS + config.REVIEWBOT_LLM_TIMEOUT_MS}): the worker ends the AI review ${AI_REPORT_MARGIN_MS / 1000} s before the job's token expires, which must leave it one model call`,
    });
  }
  if (config.REVIEWBOT_INSTALLATION_SLOT_TTL_MS < tokenTtl) {
    ctx.addIssue({
      code: "custom",
      path: ["REVIEWBOT_INSTALLATION_SLOT_TTL_MS"],
      message: "must be at least REVIEWBOT_JOB_TOKEN_TTL_MS: a job whose token is live still runs, and must keep its installation slot",
    });
  }
}

/** Where results go: files in a directory, or GitHub as an App (its id and private key). */
type SinkSetting =
  | { readonly kind: "local"; readonly dir: string }
  | { readonly kind: "github"; readonly appId: number; readonly privateKey: { readonly pem: string } | { readonly file: string } };

/**
 * The API's settings: the variables, with the sink and what it requires as one `sink`, and its
 * Redis as one `redis` target. GitHub credentials are required only when results go to GitHub.
 */
export const ApiConfig = ApiVariables.transform((variables, ctx) => {
  const {
    REVIEWBOT_SINK: kind,
    REVIEWBOT_LOCAL_SINK_DIR: dir,
    GITHUB_APP_ID: appId,
    GITHUB_PRIVATE_KEY: pem,
    GITHUB_PRIVATE_KEY_FILE: file,
    ...rest
  } = variables;
  const sink = sinkSetting(kind, { dir, appId, pem, file }, ctx);
  const redis = redisTargetOf(variables, ctx, true);
  return sink === undefined || redis === undefined ? z.NEVER : { ...rest, sink, redis };
});
export type ApiConfig = z.output<typeof ApiConfig>;

function sinkSetting(
  kind: "local" | "github",
  given: { dir: string | undefined; appId: number | undefined; pem: string | undefined; file: string | undefined },
  ctx: z.RefinementCtx,
): SinkSetting | undefined {
  if (kind === "local") {
    if (given.dir !== undefined) return { kind, dir: given.dir };
    ctx.addIssue({ code: "custom", path: ["REVIEWBOT_LOCAL_SINK_DIR"], message: "is required when REVIEWBOT_SINK=local" });
    return undefined;
  }
  if (given.appId === undefined) {
    ctx.addIssue({ code: "custom", path: ["GITHUB_APP_ID"], message: "is required when REVIEWBOT_SINK=github" });
  }
  let privateKey: { pem: string } | { file: string } | undefined;
  if (given.pem !== undefined && given.file === undefined) privateKey = { pem: given.pem };
  if (given.file !== undefined && given.pem === undefined) privateKey = { file: given.file };
  if (privateKey === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["GITHUB_PRIVATE_KEY"],
      message: "exactly one of GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_FILE is required when REVIEWBOT_SINK=github",
    });
  }
  return given.appId === undefined || privateKey === undefined ? undefined : { kind, appId: given.appId, privateKey };
}

/**
 * Whether helper findings go inline (REVIEWBOT_REVIEW_COMMENTS): as set, else on exactly when a
 * model is configured, so a newcomer who installs an AI reviewer gets inline comments at once.
 */
export function helperCommentsOn(config: Pick<ApiConfig, "REVIEWBOT_REVIEW_COMMENTS" | "REVIEWBOT_LLM_BASE_URL">): boolean {
  return (config.REVIEWBOT_REVIEW_COMMENTS ?? (config.REVIEWBOT_LLM_BASE_URL === undefined ? "off" : "on")) === "on";
}

/**
 * Reads the API's slice of an environment (every REVIEWBOT_* name plus the common names it uses;
 * secrets also from `*_FILE`); throws CONFIG_INVALID naming the first bad or unknown variable.
 */
export function loadApiConfig(env: NodeJS.ProcessEnv): Readonly<ApiConfig> {
  return parseEnvConfig(ApiConfig, env);
}
