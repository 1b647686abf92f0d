import { createLogger, type Logger } from "@reviewbot/core/logger";
import { SecretScrubber } from "@reviewbot/core/scrubber";
import { createGitHubApp, type GitHubApp, type GitHubAppOptions } from "@reviewbot/github/create-github-app";
import { Redis } from "ioredis";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "./github-stand-in.js";
import type { FileAt } from "./github-stand-in-threads.js";
import { startLocalRedis, type LocalRedis } from "./local-redis.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

export const APP_ID = 4242;
export const INSTALLATION_ID = 77;
export const REPOSITORY = "octo/widgets";
export const REPOSITORY_ID = 9001;
export const OTHER_REPOSITORY = "octo/secrets";
export const OTHER_REPOSITORY_ID = 9002;

/** One api "process": its own Redis connection, scrubber and App client, sharing Redis and the stand-in. */
export interface AppProcess {
  readonly app: GitHubApp;
  readonly redis: Redis;
  readonly scrubber: SecretScrubber;
  readonly logger: Logger;
  /** What the process logged, after scrubbing. */
  readonly logLines: string[];
  readonly requests: { route: string; status: number }[];
  readonly rateLimitWaits: { seconds: number; kind: string }[];
}

export interface GitHubHarness {
  readonly standIn: GitHubStandIn;
  readonly localRedis: LocalRedis;
  readonly privateKey: string;
  /** Starts another App client as a separate process would; closed by `stop`. */
  process(overrides?: Partial<GitHubAppOptions>): AppProcess;
  stop(): Promise<void>;
}

/**
 * A throwaway Redis, a GitHub stand-in with a fresh App key, and App clients wired to both.
 * `fileAt` lets the stand-in tell outdated review threads (typically `git show sha:path` of the test's repository).
 */
export async function startGitHubHarness(options: { readonly fileAt?: FileAt } = {}): Promise<GitHubHarness> {
  const key = generateTestAppKey();
  const localRedis = await startLocalRedis();
  const standIn = await startGitHubStandIn({
    appId: APP_ID,
    publicKey: key.publicKey,
    repositories: { [REPOSITORY]: REPOSITORY_ID, [OTHER_REPOSITORY]: OTHER_REPOSITORY_ID },
    ...(options.fileAt === undefined ? {} : { fileAt: options.fileAt }),
  });
  const connections: Redis[] = [];
  return {
    standIn,
    localRedis,
    privateKey: key.privateKey,
    process(overrides = {}) {
      const redis = new Redis({ port: localRedis.port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
      connections.push(redis);
      const scrubber = new SecretScrubber();
      const logLines: string[] = [];
      const logger = createLogger({ level: "info", scrubber, destination: { write: (line: string) => logLines.push(line) } });
      const requests: { route: string; status: number }[] = [];
      const rateLimitWaits: { seconds: number; kind: string }[] = [];
      const app = createGitHubApp({
        appId: APP_ID,
        privateKey: key.privateKey,
        baseUrl: standIn.url,
        redis,
        keys: DEFAULT_KEYSPACE,
        scrubber,
        logger,
        paceMs: 50,
        serverErrorRetryBaseMs: 100,
        onRequest: (route, status) => requests.push({ route, status }),
        onRateLimitWait: (seconds, kind) => rateLimitWaits.push({ seconds, kind }),
        ...overrides,
      });
      return { app, redis, scrubber, logger, logLines, requests, rateLimitWaits };
    },
    async stop() {
      for (const connection of connections) connection.disconnect();
      await standIn.close();
      await localRedis.stop();
    },
  };
}
