import { z } from "zod";

/** One Sentinel's address. */
export interface SentinelAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Where a role's Redis is and how it logs in: one server named by a URL, or the primary that a set
 * of Sentinels names (followed across failovers). Passwords travel apart from URLs and logs.
 */
export type RedisTarget =
  | { readonly kind: "url"; readonly url: string; readonly password?: string | undefined }
  | {
      readonly kind: "sentinel";
      readonly sentinels: readonly SentinelAddress[];
      /** The primary's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
      readonly name: string;
      readonly username?: string | undefined;
      readonly password?: string | undefined;
      /** The Sentinels' own credential (their `requirepass`), not the primary's. */
      readonly sentinelPassword?: string | undefined;
    };

const SENTINEL_DEFAULT_PORT = 26379;
const MAX_SENTINELS = 16;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])$/;

/** `host[:port]` or `[ipv6][:port]`, comma-separated; the port defaults to Sentinel's 26379. */
const sentinelList = z.string().transform((value, ctx) => {
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0 || entries.length > MAX_SENTINELS) {
    ctx.addIssue({ code: "custom", message: `must name 1 to ${MAX_SENTINELS} Sentinels as host:port, comma-separated` });
    return z.NEVER;
  }
  const addresses: SentinelAddress[] = [];
  for (const [index, entry] of entries.entries()) {
    const address = parseSentinel(entry);
    if (address === undefined) {
      ctx.addIssue({ code: "custom", message: `entry ${index + 1} is not host:port (a port from 1 to 65535)` });
      return z.NEVER;
    }
    addresses.push(address);
  }
  return addresses;
});

function parseSentinel(entry: string): SentinelAddress | undefined {
  const match = /^(.+?)(?::(\d{1,5}))?$/.exec(entry);
  const [, host = "", port] = match ?? [];
  if (!HOST.test(host) || (host.includes(":") && !host.startsWith("["))) return undefined;
  const number = port === undefined ? SENTINEL_DEFAULT_PORT : Number(port);
  if (number < 1 || number > 65_535) return undefined;
  return { host: host.replace(/^\[(.*)\]$/, "$1"), port: number };
}

/**
 * The Redis variables every app reads; spread into an app's config schema and turned into one
 * {@link RedisTarget} by {@link redisTargetOf}. REDIS_URL or REDIS_SENTINELS (with
 * REDIS_SENTINEL_NAME), never both. Secrets also from `*_FILE` (REDIS_PASSWORD_FILE,
 * REDIS_SENTINEL_PASSWORD_FILE).
 */
export const REDIS_ENV_FIELDS = {
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  REDIS_SENTINELS: sentinelList.optional(),
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/, "must be the primary's name as the Sentinels know it (letters, digits, . _ -)")
    .optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  // The role's ACL user where no URL names it (infra/redis/users.acl.template).
  REDIS_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,128}$/, "must be an ACL user name (letters, digits, . _ -)")
    .optional(),
  // The role's password; use REDIS_PASSWORD_FILE.
  REDIS_PASSWORD: z.string().min(1).optional(),
};

type RedisEnv = { readonly [K in keyof typeof REDIS_ENV_FIELDS]?: z.output<(typeof REDIS_ENV_FIELDS)[K]> };

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

function targetOrProblem(env: RedisEnv, required: boolean): RedisTarget | { variable: keyof RedisEnv; message: string } | undefined {
  const { REDIS_URL: url, REDIS_SENTINELS: sentinels, REDIS_SENTINEL_NAME: name, REDIS_USERNAME: username, REDIS_PASSWORD: password } = env;
  if (url !== undefined && sentinels !== undefined) return { variable: "REDIS_URL", message: "set REDIS_URL or REDIS_SENTINELS, not both" };
  if (sentinels === undefined) {
    if (name !== undefined || env.REDIS_SENTINEL_PASSWORD !== undefined) {
      return { variable: "REDIS_SENTINELS", message: "is required with REDIS_SENTINEL_NAME or REDIS_SENTINEL_PASSWORD" };
    }
    if (url === undefined) {
      if (username !== undefined) return { variable: "REDIS_URL", message: "is required with REDIS_USERNAME (or REDIS_SENTINELS)" };
      return required ? { variable: "REDIS_URL", message: "is required (or REDIS_SENTINELS with REDIS_SENTINEL_NAME)" } : undefined;
    }
    if (!URL.canParse(url)) return { variable: "REDIS_URL", message: "is not a valid URL" };
    const parsed = new URL(url);
    if (username !== undefined && parsed.username !== "") return { variable: "REDIS_USERNAME", message: "the URL names a user already: set one or the other" };
    if (username !== undefined) parsed.username = username;
    return { kind: "url", url: username === undefined ? url : parsed.toString(), password };
  }
  if (name === undefined) return { variable: "REDIS_SENTINEL_NAME", message: "is required with REDIS_SENTINELS (the primary's name in `sentinel monitor`)" };
  return { kind: "sentinel", sentinels, name, username, password, sentinelPassword: env.REDIS_SENTINEL_PASSWORD };
}

/** The variables that name `target` for a child process (the inverse of {@link redisTargetOf}). */
export function redisTargetEnv(target: RedisTarget): Record<string, string> {
  const optional = (key: string, value: string | undefined): Record<string, string> => (value === undefined ? {} : { [key]: value });
  if (target.kind === "url") return { REDIS_URL: target.url, ...optional("REDIS_PASSWORD", target.password) };
  return {
    REDIS_SENTINELS: target.sentinels.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(","),
    REDIS_SENTINEL_NAME: target.name,
    ...optional("REDIS_USERNAME", target.username),
    ...optional("REDIS_PASSWORD", target.password),
    ...optional("REDIS_SENTINEL_PASSWORD", target.sentinelPassword),
  };
}

/** What a log line or a banner may say about `target`: no password, no URL credentials. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === "url") return target.url.replace(/\/\/[^@/]*@/, "//");
  return `sentinel ${target.name} via ${target.sentinels.map(({ host, port }) => `${host}:${port}`).join(",")}`;
}

/** The secrets `target` holds, for the scrubber. */
export function redisSecrets(target: RedisTarget): string[] {
  const secrets = [target.password, target.kind === "sentinel" ? target.sentinelPassword : undefined];
  return secrets.filter((secret): secret is string => secret !== undefined);
}
