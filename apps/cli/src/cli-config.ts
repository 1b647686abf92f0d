import { z } from "zod";
import { parseEnvConfig } from "@reviewbot/core/env-config";
import { REDIS_ENV_FIELDS, redisTargetOf } from "@reviewbot/queue/redis-target";
import { LLM_ENV_FIELDS, refineLlmEnv } from "@reviewbot/llm/llm-settings";
import { LogLevel } from "@reviewbot/contracts/log-level";
import { RuntimeConfig } from "@reviewbot/runtime/runtime-config";
import { REDIS_KEYSPACE_ENV_FIELDS } from "@reviewbot/queue/redis-keyspace";

/**
 * The CLI's operator settings: the pipeline's slice (cache, sandbox, policy file), the log level,
 * the model (REVIEWBOT_LLM_*: `review` runs the AI review itself, being its own broker), and, for
 * `submit` and `fleet`, Redis and the webhook secret the queue seal derives from. Strict: an
 * unknown REVIEWBOT_* name is an error (a typo must not silently fall back to a default).
 */
export const CliConfig = RuntimeConfig.extend({
  REVIEWBOT_LOG_LEVEL: LogLevel.default("warn"),
  // `submit` enqueues as the api does: with the api's Redis role and its queue seal (the webhook secret);
  // `fleet` starts a private Redis unless REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES names one.
  ...REDIS_ENV_FIELDS,
  ...REDIS_KEYSPACE_ENV_FIELDS,
  REVIEWBOT_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  // The AI review starts no model call later than this after the command started (the worker's name and bounds).
  REVIEWBOT_REVIEW_DEADLINE_MS: z.coerce.number().int().min(5_000).max(86_400_000).default(1_200_000),
  ...LLM_ENV_FIELDS,
  // `eval`'s judge model: same endpoint, key and per-review budget as REVIEWBOT_LLM_MODEL; unset = no judge.
  REVIEWBOT_EVAL_JUDGE_MODEL: z.string().min(1).max(200).optional(),
})
  .strict()
  .superRefine((config, ctx) => {
    refineLlmEnv(config, ctx);
  })
  .transform((config, ctx) => ({ ...config, redis: redisTargetOf(config, ctx, false) }));
export type CliConfig = z.output<typeof CliConfig>;

/** Reads the CLI's slice of an environment; throws CONFIG_INVALID naming the variable. */
export function loadCliConfig(env: NodeJS.ProcessEnv): Readonly<CliConfig> {
  return parseEnvConfig(CliConfig, env);
}
