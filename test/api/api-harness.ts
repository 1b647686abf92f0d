import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { TokenMinter } from "@reviewbot/api/broker/claim-handler";
import { InstallationSlots } from "@reviewbot/api/broker/installation-slots";
import { ModelBudget, type ModelBudgetLimits } from "@reviewbot/api/broker/model-budget";
import { TokenVault, type TokenRevoker } from "@reviewbot/api/broker/token-vault";
import { WorkerRegistry } from "@reviewbot/api/broker/worker-registry";
import { createApiApp, type ApiDeps } from "@reviewbot/api/routes/create-api-app";
import { createApiMetrics, type ApiMetrics } from "@reviewbot/api/api-metrics";
import { createModelUsageMetrics, type ModelUsageMetrics } from "@reviewbot/api/model-usage-metrics";
import { createLogger } from "@reviewbot/core/logger";
import { createGitHubApp } from "@reviewbot/github/create-github-app";
import { mintRepositoryToken } from "@reviewbot/github/mint-repository-token";
import { revokeRepositoryToken } from "@reviewbot/github/revoke-repository-token";
import { SealedBox } from "@reviewbot/core/sealed-box";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { priceOf, type LlmPrices } from "@reviewbot/llm/llm-prices";
import type { LlmProtocol } from "@reviewbot/llm/llm-settings";
import { createModelClient, longestCallMs } from "@reviewbot/llm/model-client";
import { QueueSeal } from "@reviewbot/queue/queue-seal";
import { newWorkerCredential, parseWorkerCredential, registryLine } from "@reviewbot/queue/worker-credential";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { COMMAND_ASSOCIATIONS, PULL_REQUEST_ACTIONS } from "@reviewbot/api/webhooks/decide-delivery";
import { createReplicaQuorum, type ReplicaQuorumOptions } from "@reviewbot/api/webhooks/replica-quorum";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

export const SECRET = "test-webhook-secret-0123456789";
/** The api's queue seal under {@link SECRET}: what the api writes, a test may write as the api. */
export const SEAL = QueueSeal.fromSecret(SECRET);
export const MAX_BYTES = 64 * 1024;

export interface ApiHarness {
  readonly url: string;
  /** The harness's own throwaway Redis, or null when it was given `redisUrl`. */
  readonly redisServer: LocalRedis | null;
  /** Where the api's Redis is (full access). */
  readonly redisUrl: string;
  readonly redis: Redis;
  readonly reviews: Queue;
  readonly github: Queue;
  readonly metrics: ApiMetrics;
  readonly scrubber: SecretScrubber;
  /** The registered worker credentials (`<name>.<secret>`), when the worker routes are on. */
  readonly workerCredentials: readonly string[];
  /** The api's REVIEWBOT_WORKERS_FILE (a test may rewrite it: the api re-reads it within a second). */
  readonly registryFile: string;
  /** The token vault, when the worker routes mint tokens. */
  readonly vault: TokenVault | null;
  /** The per-installation concurrency cap of the worker routes. */
  readonly slots: InstallationSlots;
  /** Every log line the API wrote, parsed. */
  readonly logs: Record<string, unknown>[];
  close(): Promise<void>;
}

type BrokerDeps = NonNullable<NonNullable<ApiDeps["workers"]>["model"]>;

/** The model broker's settings, as main builds them from REVIEWBOT_LLM_* (apps/api/src/broker/model-broker.ts). */
export interface HarnessModel {
  readonly protocol: LlmProtocol;
  /** The upstream (a stand-in model server). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The allowlist; the first is the default offered to workers. */
  readonly models: readonly string[];
  readonly maxTokens: number;
  /** The caps and the calls an installation may have in flight; the marks' lifetime is main's (the client's longest call). */
  readonly budgets: Omit<ModelBudgetLimits, "callTtlMs">;
  readonly prices?: LlmPrices;
  /** The model client's attempts per call and first backoff (production: 4 and 1000 ms). */
  readonly attempts?: number;
  readonly backoffMs?: number;
  /** `fetch_url`'s fetcher; none (fetch off) unless given. */
  readonly fetcher?: BrokerDeps["fetcher"] | undefined;
}

export type HarnessOptions = Partial<Pick<ApiDeps, "dashboard">> & {
  readonly enqueueDeadlineMs?: number;
  readonly botLogins?: readonly string[];
  /** Turns the worker routes on for this many registered workers (`worker-0` …). */
  readonly workers?: number;
  /** With `workers`: claims mint tokens through this, revoked through `revoke`. */
  readonly tokens?: { readonly mint: TokenMinter; readonly revoke: TokenRevoker; readonly ttlMs?: number };
  /** With `workers`: reviews one installation may run at once (default 4), and how long a slot lives (default 30 min). */
  readonly installationConcurrency?: number;
  readonly slotTtlMs?: number;
  /** An existing Redis (its admin URL) instead of a throwaway one, which the harness then leaves running. */
  readonly redisUrl?: string;
  /** With `workers`: the model broker (the model, fetch and AI-cache routes); off unless given. */
  readonly model?: HarnessModel;
  /** WAIT for replicas before a 202, as main sets it from REVIEWBOT_REDIS_MIN_REPLICAS / _WAIT_MS; off unless given. */
  readonly replicas?: ReplicaQuorumOptions;
};

/**
 * The api with worker routes whose claims mint real repository tokens from a GitHub stand-in, and
 * revoke them there, through the App as main builds it (its token cache in the api's Redis).
 * Returns the minter too, for a test that wires a second api the same way.
 */
export async function startMintingApi(
  options: Omit<HarnessOptions, "tokens">,
  github: { readonly url: string; readonly appId: number; readonly privateKey: string },
): Promise<{ api: ApiHarness; mint: TokenMinter }> {
  let mint: TokenMinter = () => Promise.reject(new Error("not wired"));
  const api = await startApi({
    ...options,
    tokens: { mint: (installationId, repositoryId) => mint(installationId, repositoryId), revoke: (token) => revokeRepositoryToken(github.url, token) },
  });
  const app = createGitHubApp({
    appId: github.appId,
    privateKey: github.privateKey,
    baseUrl: github.url,
    redis: api.redis,
    keys: DEFAULT_KEYSPACE,
    scrubber: api.scrubber,
    logger: createLogger({ level: "silent", scrubber: api.scrubber }),
  });
  mint = (installationId, repositoryId) => mintRepositoryToken(app, installationId, repositoryId);
  return { api, mint };
}

/** The real API app on a real port, with a throwaway redis-server and log lines captured. */
export async function startApi(options: HarnessOptions = {}): Promise<ApiHarness> {
  const redisServer = options.redisUrl === undefined ? await startLocalRedis() : null;
  const redisUrl = options.redisUrl ?? redisServer?.url ?? "";
  const redis = createRedisConnection(redisUrl, { name: "test-api", blocking: false });
  redis.on("error", () => undefined);
  const reviews = new Queue(REVIEW_QUEUE, { connection: redis });
  const github = new Queue(GITHUB_QUEUE, { connection: redis });
  const metrics = createApiMetrics([reviews, github]);
  const scrubber = new SecretScrubber();
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "debug",
    scrubber,
    destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const workerCredentials = Array.from({ length: options.workers ?? 0 }, (_, index) => newWorkerCredential(`worker-${index}`));
  const registryDir = mkdtempSync(join(tmpdir(), "reviewbot-workers-"));
  const registryFile = join(registryDir, "workers");
  writeFileSync(registryFile, workerCredentials.map((credential) => registryLine(parseWorkerCredential(credential) ?? { name: "", secret: "" })).join("\n"));
  const vault =
    options.tokens === undefined
      ? null
      : new TokenVault({ redis, keys: DEFAULT_KEYSPACE, box: new SealedBox(SECRET, "token-vault/v1"), revoke: options.tokens.revoke, scrubber, logger });
  const slots = new InstallationSlots({
    redis,
    keys: DEFAULT_KEYSPACE,
    reviews,
    limit: options.installationConcurrency ?? 4,
    ttlMs: options.slotTtlMs ?? 1_800_000,
  });
  const app = createApiApp({
    webhook: {
      secret: SECRET,
      maxBytes: MAX_BYTES,
      filter: {
        botLogins: options.botLogins ?? ["renovate-bot"],
        reviewCommand: "/review",
        checkRunName: "reviewbot",
        appId: 42,
        pullRequestActions: PULL_REQUEST_ACTIONS,
        commandAssociations: COMMAND_ASSOCIATIONS,
        answers: options.model !== undefined,
        // The operator's tightest ceilings: drafts and apps' PRs ignored at the webhook.
        drafts: "never",
        botPullRequests: "never",
      },
      enqueueDeadlineMs: options.enqueueDeadlineMs ?? 3000,
      replicas: options.replicas === undefined ? null : createReplicaQuorum(redis, DEFAULT_KEYSPACE, options.replicas),
    },
    queues: { reviews, github },
    seal: SEAL,
    redis,
    keys: DEFAULT_KEYSPACE,
    metrics,
    logger,
    scrubber,
    workers:
      options.workers === undefined
        ? null
        : {
            registry: new WorkerRegistry(registryFile, logger),
            tokens: options.tokens === undefined || vault === null ? null : { mint: options.tokens.mint, vault, ttlMs: options.tokens.ttlMs ?? 900_000 },
            slots,
            maxReportBytes: 16 * 1024 * 1024,
            aiRetry: { attempts: 2, delayMs: 1000 },
            model: options.model === undefined ? null : modelBroker(options.model, redis, scrubber, createModelUsageMetrics(metrics.registry)),
            describe: null,
            thread: null,
          },
    dashboard: options.dashboard ?? null,
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => {
      resolve(listening);
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    redisServer,
    redisUrl,
    redis,
    reviews,
    github,
    metrics,
    scrubber,
    workerCredentials,
    registryFile,
    vault,
    slots,
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.allSettled([reviews.close(), github.close()]);
      redis.disconnect();
      await redisServer?.stop();
      rmSync(registryDir, { recursive: true, force: true });
    },
  };
}

/** The broker wired as main wires it: the real model client and budget, the key registered with the scrubber first. */
function modelBroker(settings: HarnessModel, redis: Redis, scrubber: SecretScrubber, usage: ModelUsageMetrics): BrokerDeps {
  scrubber.register(settings.apiKey);
  const timeoutMs = 30_000;
  const client = createModelClient({
    protocol: settings.protocol,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    timeoutMs,
    ...(settings.attempts === undefined ? {} : { attempts: settings.attempts }),
    ...(settings.backoffMs === undefined ? {} : { backoffMs: settings.backoffMs }),
  });
  const model = settings.models[0] ?? "";
  const prices = settings.prices ?? new Map();
  return {
    upstream: { model, complete: (request, signal) => client.complete(request, signal) },
    models: settings.models,
    maxTokens: settings.maxTokens,
    budget: new ModelBudget(redis, DEFAULT_KEYSPACE, { ...settings.budgets, callTtlMs: longestCallMs(timeoutMs) }),
    usage,
    price: (used, name) => priceOf(used, name, prices),
    fetcher: settings.fetcher ?? null,
    offer: { model, maxOutputTokens: settings.maxTokens, contextTokens: 128_000, jobTokens: settings.budgets.jobTokens },
  };
}
