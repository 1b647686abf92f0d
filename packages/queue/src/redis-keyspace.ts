import { z } from "zod";

/**
 * Where every Redis key of a fleet lives. `ours` starts each of our own keys (`<ours>:pr:…`,
 * `<ours>:broker:…`) and the cancel channel; `bull` is BullMQ's `prefix` option for every Queue,
 * Worker, QueueEvents and FlowProducer (`<bull>:reviews:…`). Built once in each composition root
 * from REVIEWBOT_REDIS_PREFIX and passed down as a value.
 */
export interface RedisKeyspace {
  readonly ours: string;
  readonly bull: string;
}

/**
 * REVIEWBOT_REDIS_PREFIX: letters, digits and `_ . : -`, optionally opening with one hash tag
 * (`{reviewbot}`: Redis Cluster hashes only the part between the first `{` and the next `}`). Nothing that is special in a key pattern or an ACL pattern (`* ? [ ] \`),
 * no space, newline or `&` (the ACL template's renderers substitute it verbatim), no trailing `:`.
 */
export const RedisPrefix = z
  .string()
  .max(64, "must be at most 64 characters")
  .regex(/^(\{[A-Za-z0-9_.:-]+\})?[A-Za-z0-9_.:-]*$/, "must be letters, digits, _ . : - and may open with one hash tag such as {reviewbot}")
  .refine((prefix) => prefix.length > 0 && !prefix.endsWith(":"), "must be non-empty and not end with ':'");

/** True when `prefix` opens with a hash tag (`{reviewbot}…`): every key under it hashes to one Cluster slot. */
export function opensWithHashTag(prefix: string | undefined): boolean {
  return prefix !== undefined && /^\{[^}]+\}/.test(prefix);
}

/** The env field every process that opens the queues declares (api, worker, CLI). */
export const REDIS_KEYSPACE_ENV_FIELDS = { REVIEWBOT_REDIS_PREFIX: RedisPrefix.optional() };

/**
 * The keyspace for a prefix. Unset: today's names (`reviewbot:…` and BullMQ's default `bull:…`),
 * so a running fleet upgrades without moving a key. Set to P: `P:…` for ours and `P:bull:…` for
 * BullMQ's, so with a hash tag P every key (and so every Lua script's keys, ours and BullMQ's
 * together) hashes to one Cluster slot.
 */
export function redisKeyspace(prefix?: string): RedisKeyspace {
  if (prefix === undefined) return DEFAULT_KEYSPACE;
  const valid = RedisPrefix.parse(prefix);
  return Object.freeze({ ours: valid, bull: `${valid}:bull` });
}

/** Today's key names: no prefix set. */
export const DEFAULT_KEYSPACE: RedisKeyspace = Object.freeze({ ours: "reviewbot", bull: "bull" });
