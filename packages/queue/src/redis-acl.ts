import { createHash } from "node:crypto";
import type { RedisKeyspace } from "./redis-keyspace.js";

/** The Redis ACL user of each role (infra/redis/users.acl.template defines what each may touch). */
export const REDIS_USERS = { api: "reviewbot-api", worker: "reviewbot-worker", admin: "default" } as const;
export type RedisRole = keyof typeof REDIS_USERS;

/**
 * Renders the ACL template (infra/redis/users.acl.template, the one definition the shell renderer
 * infra/redis/render-acl.sh also reads) into a Redis ACL file: each role's password goes in as its
 * SHA-256, so the file holds no password, and each key and channel pattern under the fleet's
 * keyspace (REVIEWBOT_REDIS_PREFIX), so a role reaches the same keys whatever the prefix.
 */
export function renderRedisAcl(template: string, passwords: Readonly<Record<RedisRole, string>>, keys: RedisKeyspace): string {
  const hash = (password: string): string => createHash("sha256").update(password).digest("hex");
  return template
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) =>
      line
        .replace("{{API}}", hash(passwords.api))
        .replace("{{WORKER}}", hash(passwords.worker))
        .replace("{{ADMIN}}", hash(passwords.admin))
        .replaceAll("{{PREFIX}}", keys.ours)
        .replaceAll("{{BULL}}", keys.bull),
    )
    .join("\n")
    .concat("\n");
}

/** `redis://<user>@host:port/…` for a role; the password travels separately (REDIS_PASSWORD). */
export function redisUrlFor(url: string, role: RedisRole): string {
  const parsed = new URL(url);
  parsed.username = REDIS_USERS[role];
  parsed.password = "";
  return parsed.toString().replace(/\/$/, "");
}
