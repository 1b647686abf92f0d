import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import { SealedBox } from "@reviewbot/core/sealed-box";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { GitHubApp } from "@reviewbot/github/create-github-app";
import { revokeRepositoryToken } from "@reviewbot/github/revoke-repository-token";
import type { ApiConfig } from "../api-config.js";
import { InstallationSlots } from "../broker/installation-slots.js";
import { startTokenSweeper } from "../broker/token-sweeper.js";
import { TokenVault } from "../broker/token-vault.js";
import { WorkerRegistry } from "../broker/worker-registry.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface BrokerDeps {
  /** Null with the local sink: no tokens are minted, so none are kept. */
  readonly app: GitHubApp | null;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly reviews: Queue;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
}

/** The broker's lasting parts: what the worker routes check and keep, and the sweeper behind them. */
export interface Broker {
  /** Null without REVIEWBOT_WORKERS_FILE: the worker routes are off. */
  readonly registry: WorkerRegistry | null;
  /** Null without a GitHub App: claims carry no token. */
  readonly vault: TokenVault | null;
  readonly slots: InstallationSlots;
  readonly sweeper: ReturnType<typeof startTokenSweeper>;
}

/**
 * The token vault, the installation slots, the sweeper (started here) and the worker registry.
 *
 * @throws AppError `CONFIG_INVALID` when REVIEWBOT_WORKERS_FILE cannot be read or parsed.
 */
export function buildBroker(config: ApiConfig, deps: BrokerDeps): Broker {
  const { app, redis, keys, reviews, scrubber, logger } = deps;
  const vault =
    app === null
      ? null
      : new TokenVault({
          redis,
          keys,
          box: new SealedBox(config.REVIEWBOT_WEBHOOK_SECRET, "token-vault/v1"),
          revoke: (token) => revokeRepositoryToken(config.GITHUB_API_URL, token),
          scrubber,
          logger,
        });
  const slots = new InstallationSlots({
    redis,
    keys,
    reviews,
    limit: config.REVIEWBOT_INSTALLATION_CONCURRENCY,
    ttlMs: config.REVIEWBOT_INSTALLATION_SLOT_TTL_MS,
  });
  // Tokens, installation slots and fair-share entries of jobs that ended without a report, which
  // nothing else frees.
  const sweeper = startTokenSweeper({ vault, slots, redis, keys, reviews, logger });
  const registry = config.REVIEWBOT_WORKERS_FILE === undefined ? null : new WorkerRegistry(config.REVIEWBOT_WORKERS_FILE, logger);
  return { registry, vault, slots, sweeper };
}
