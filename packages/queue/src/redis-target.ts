import { z } from "zod";
import { opensWithHashTag } from "./redis-keyspace.js";

/** One server's address: a Sentinel or a Cluster node. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Where a role's Redis is and how it logs in: one server named by a URL, the primary that a set
 * of Sentinels names (followed across failovers), or a Cluster found through some of its nodes.
 * Passwords travel apart from URLs and logs.
 */
export type RedisTarget =
  | { readonly kind: "url"; readonly url: string; readonly password?: string | undefined }
  | {
      readonly kind: "sentinel";
      readonly sentinels: readonly RedisAddress[];
      /** The primary's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
      readonly name: string;
      readonly username?: string | undefined;
      readonly password?: string | undefined;
      /** The Sentinels' own credential (their `requirepass`), not the primary's. */
      readonly sentinelPassword?: string | undefined;
    }
  | {
      readonly kind: "cluster";
      /** Where the Cluster is first asked for its slots; the rest of its nodes are learnt from them. */
      readonly nodes: readonly RedisAddress[];
      readonly username?: string | undefined;
      readonly password?: string | undefined;
    };

const SENTINEL_DEFAULT_PORT = 26379;
const REDIS_DEFAULT_PORT = 6379;
const MAX_ADDRESSES = 16;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])$/;

/** `host[:port]` or `[ipv6][:port]`, comma-separated, at most 16; `what` names the servers in errors. */
function addressList(what: string, defaultPort: number) {
  return z.string().transform((value, ctx) => {
    const entries = value
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    if (entries.length === 0 || entries.length > MAX_ADDRESSES) {
      ctx.addIssue({ code: "custom", message: `must name 1 to ${MAX_ADDRESSES} ${what} as host:port, comma-separated` });
      return z.NEVER;
    }
    const addresses: RedisAddress[] = [];
    for (const [index, entry] of entries.entries()) {
      const address = parseAddress(entry, defaultPort);
      if (address === undefined) {
        ctx.addIssue({ code: "custom", message: `entry ${index + 1} is not host:port (a port from 1 to 65535)` });
        return z.NEVER;
      }
      addresses.push(address);
    }
    return addresses;
  });
}

function parseAddress(entry: string, defaultPort: number): RedisAddress | undefined {
  const match = /^(.+?)(?::(\d{1,5}))?$/.exec(entry);
  const [, host = "", port] = match ?? [];
  if (!HOST.test(host) || (host.includes(":") && !host.startsWith("["))) return undefined;
  const number = port === undefined ? defaultPort : Number(port);
  if (number < 1 || number > 65_535) return undefined;
  return { host: host.replace(/^\[(.*)\]$/, "$1"), port: number };
}

/**
 * The Redis variables every app reads; spread into an app's config schema and turned into one
 * {@link RedisTarget} by {@link redisTargetOf}. One of REDIS_URL, REDIS_SENTINELS (with
 * REDIS_SENTINEL_NAME) or REDIS_CLUSTER_NODES. Secrets also from `*_FILE` (REDIS_PASSWORD_FILE,
 * REDIS_SENTINEL_PASSWORD_FILE).
 */
export const REDIS_ENV_FIELDS = {
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  REDIS_SENTINELS: addressList("Sentinels", SENTINEL_DEFAULT_PORT).optional(),
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/, "must be the primary's name as the Sentinels know it (letters, digits, . _ -)")
    .optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  // Some of a Cluster's nodes (its primaries or replicas); the rest are learnt from CLUSTER SLOTS.
  REDIS_CLUSTER_NODES: addressList("Cluster nodes", REDIS_DEFAULT_PORT).optional(),
  // The role's ACL user where no URL names it (infra/redis/users.acl.template).
  REDIS_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/, "must be an ACL user name (letters, digits, . _ -)")
    .optional(),
  // The role's password; use REDIS_PASSWORD_FILE.
  REDIS_PASSWORD: z.string().min(1).optional(),
};

/** The variables {@link redisTargetOf} reads: {@link REDIS_ENV_FIELDS} and the key prefix (a Cluster needs a hash tag). */
type RedisEnv = { readonly [K in keyof typeof REDIS_ENV_FIELDS]?: z.output<(typeof REDIS_ENV_FIELDS)[K]> } & {
  readonly REVIEWBOT_REDIS_PREFIX?: string | undefined;
};

const SERVER_VARIABLES = ["REDIS_URL", "REDIS_SENTINELS", "REDIS_CLUSTER_NODES"] as const;

/**
 * The one target the variables describe; undefined when they name none (allowed unless `required`:
 * the CLI may start its own Redis) or contradict each other, with an issue in `ctx` naming the
 * variable.
 */
export function redisTargetOf(env: RedisEnv, ctx: z.RefinementCtx, required: boolean): RedisTarget | undefined {
  const outcome = targetOrProblem(env, required);
  if (outcome === undefined || "kind" in outcome) return outcome;
  ctx.addIssue({ code: "custom", path: [outcome.variable], message: outcome.message });
  return undefined;
}

type Problem = { variable: keyof RedisEnv; message: string };

function targetOrProblem(env: RedisEnv, required: boolean): RedisTarget | Problem | undefined {
  const {
    REDIS_URL: url,
    REDIS_SENTINELS: sentinels,
    REDIS_CLUSTER_NODES: nodes,
    REDIS_SENTINEL_NAME: name,
    REDIS_USERNAME: username,
    REDIS_PASSWORD: password,
  } = env;
  const named = SERVER_VARIABLES.filter((variable) => env[variable] !== undefined);
  const [first] = named;
  if (named.length > 1) return { variable: first ?? "REDIS_URL", message: `set one of ${SERVER_VARIABLES.join(", ")}, not ${named.join(" and ")}` };
  if (sentinels === undefined && (name !== undefined || env.REDIS_SENTINEL_PASSWORD !== undefined)) {
    return { variable: "REDIS_SENTINELS", message: "is required with REDIS_SENTINEL_NAME or REDIS_SENTINEL_PASSWORD" };
  }
  if (url !== undefined) return urlTarget(url, username, password);
  if (nodes !== undefined) return clusterTarget(nodes, env);
  if (sentinels !== undefined) {
    if (name === undefined) return { variable: "REDIS_SENTINEL_NAME", message: "is required with REDIS_SENTINELS (the primary's name in `sentinel monitor`)" };
    return { kind: "sentinel", sentinels, name, username, password, sentinelPassword: env.REDIS_SENTINEL_PASSWORD };
  }
  if (username !== undefined) return { variable: "REDIS_URL", message: "is required with REDIS_USERNAME (or REDIS_SENTINELS, or REDIS_CLUSTER_NODES)" };
  return required ? { variable: "REDIS_URL", message: "is required (or REDIS_SENTINELS with REDIS_SENTINEL_NAME, or REDIS_CLUSTER_NODES)" } : undefined;
}

function urlTarget(url: string, username: string | undefined, password: string | undefined): RedisTarget | Problem {
  if (!URL.canParse(url)) return { variable: "REDIS_URL", message: "is not a valid URL" };
  const parsed = new URL(url);
  if (username !== undefined && parsed.username !== "") return { variable: "REDIS_USERNAME", message: "the URL names a user already: set one or the other" };
  if (username !== undefined) parsed.username = username;
  return { kind: "url", url: username === undefined ? url : parsed.toString(), password };
}

// Each Lua script (BullMQ's and ours) must find all its keys on one node: only a hash tag does that.
function clusterTarget(nodes: readonly RedisAddress[], env: RedisEnv): RedisTarget | Problem {
  if (!opensWithHashTag(env.REVIEWBOT_REDIS_PREFIX)) {
    return {
      variable: "REVIEWBOT_REDIS_PREFIX",
      message: "must open with a hash tag such as {reviewbot} when REDIS_CLUSTER_NODES is set, so every key hashes to one Cluster slot",
    };
  }
  return { kind: "cluster", nodes, username: env.REDIS_USERNAME, password: env.REDIS_PASSWORD };
}

/** The variables that name `target` for a child process (the inverse of {@link redisTargetOf}). */
export function redisTargetEnv(target: RedisTarget): Record<string, string> {
  const optional = (key: string, value: string | undefined): Record<string, string> => (value === undefined ? {} : { [key]: value });
  if (target.kind === "url") return { REDIS_URL: target.url, ...optional("REDIS_PASSWORD", target.password) };
  if (target.kind === "cluster") {
    return { REDIS_CLUSTER_NODES: addressesText(target.nodes), ...optional("REDIS_USERNAME", target.username), ...optional("REDIS_PASSWORD", target.password) };
  }
  return {
    REDIS_SENTINELS: addressesText(target.sentinels),
    REDIS_SENTINEL_NAME: target.name,
    ...optional("REDIS_USERNAME", target.username),
    ...optional("REDIS_PASSWORD", target.password),
    ...optional("REDIS_SENTINEL_PASSWORD", target.sentinelPassword),
  };
}

/** What a log line or a banner may say about `target`: no password, no URL credentials. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === "url") return target.url.replace(/\/\/[^@/]*@/, "//");
  if (target.kind === "cluster") return `cluster via ${addressesText(target.nodes)}`;
  return `sentinel ${target.name} via ${addressesText(target.sentinels)}`;
}

function addressesText(addresses: readonly RedisAddress[]): string {
  return addresses.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(",");
}

/** The secrets `target` holds, for the scrubber. */
export function redisSecrets(target: RedisTarget): string[] {
  const secrets = [target.password, target.kind === "sentinel" ? target.sentinelPassword : undefined];
  return secrets.filter((secret): secret is string => secret !== undefined);
}
