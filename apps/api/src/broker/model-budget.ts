import type { Redis } from "ioredis";
import { AppError } from "@reviewbot/core/errors";
import type { TokenUsage } from "@reviewbot/contracts/chat";
import { KEY_PREFIX } from "@reviewbot/queue/queue-names";

/** The operator's caps; spend in microdollars (millionths of a US dollar), null for none. */
export interface ModelBudgetLimits {
  readonly jobTokens: number;
  readonly installationDailyTokens: number;
  readonly jobMicrodollars: number | null;
  readonly installationDailyMicrodollars: number | null;
}

export interface JobBudget {
  readonly usedTokens: number;
  readonly maxTokens: number;
}

/** Past any job and past a day: the counters are only read while they can matter. */
const TTL_SECONDS = 2 * 24 * 3600;

/**
 * Token and spend counters per job and per installation per UTC day, in Redis under api-only keys
 * (`reviewbot:llm:*`: a worker's Redis user cannot reach them). A call is let through while every
 * counter is below its cap, and its output is clamped to what the job has left; usage is added
 * when the answer arrives. Calls in flight at the same time may together pass a cap by at most
 * their own size: the caps bound the bill, not each token.
 */
export class ModelBudget {
  readonly #redis: Redis;
  readonly #limits: ModelBudgetLimits;
  readonly #now: () => Date;

  constructor(redis: Redis, limits: ModelBudgetLimits, now: () => Date = () => new Date()) {
    this.#redis = redis;
    this.#limits = limits;
    this.#now = now;
  }

  /**
   * What the job may still spend on one call, in output tokens.
   *
   * @throws AppError `LLM_BUDGET_EXCEEDED` naming the cap that is used up.
   */
  async admit(jobId: string, installationId: number): Promise<{ outputTokensLeft: number; budget: JobBudget }> {
    const [job, installation] = await Promise.all([this.#read(jobKey(jobId)), this.#read(this.#installationKey(installationId))]);
    const limits = this.#limits;
    const refuse = (what: string): never => {
      throw new AppError("LLM_BUDGET_EXCEEDED", `the ${what} is used up`, { details: { jobId, installationId } });
    };
    if (job.tokens >= limits.jobTokens) refuse(`job's token budget (${limits.jobTokens} tokens)`);
    if (installation.tokens >= limits.installationDailyTokens) refuse(`installation's daily token budget (${limits.installationDailyTokens} tokens)`);
    if (limits.jobMicrodollars !== null && job.microdollars >= limits.jobMicrodollars) refuse("job's spend cap");
    if (limits.installationDailyMicrodollars !== null && installation.microdollars >= limits.installationDailyMicrodollars)
      refuse("installation's daily spend cap");
    return {
      outputTokensLeft: Math.min(limits.jobTokens - job.tokens, limits.installationDailyTokens - installation.tokens),
      budget: { usedTokens: job.tokens, maxTokens: limits.jobTokens },
    };
  }

  /** Adds one answer's usage to the job's and the installation's counters; the job's total after it. */
  async record(jobId: string, installationId: number, usage: TokenUsage, microdollars: number): Promise<JobBudget> {
    const tokens = usage.inputTokens + usage.outputTokens;
    const dayKey = this.#installationKey(installationId);
    const result = await this.#redis
      .multi()
      .hincrby(jobKey(jobId), "tokens", tokens)
      .hincrby(jobKey(jobId), "microdollars", microdollars)
      .expire(jobKey(jobId), TTL_SECONDS)
      .hincrby(dayKey, "tokens", tokens)
      .hincrby(dayKey, "microdollars", microdollars)
      .expire(dayKey, TTL_SECONDS)
      .exec();
    const used = Number(result?.[0]?.[1] ?? 0);
    return { usedTokens: used, maxTokens: this.#limits.jobTokens };
  }

  async #read(key: string): Promise<{ tokens: number; microdollars: number }> {
    const [tokens, microdollars] = await this.#redis.hmget(key, "tokens", "microdollars");
    return { tokens: Number(tokens ?? 0), microdollars: Number(microdollars ?? 0) };
  }

  #installationKey(installationId: number): string {
    return `${KEY_PREFIX}:llm:installation:${installationId}:${this.#now().toISOString().slice(0, 10)}`;
  }
}

function jobKey(jobId: string): string {
  return `${KEY_PREFIX}:llm:job:${jobId}`;
}
