import type { SecretScrubber } from "@reviewbot/core/scrubber";

/**
 * Returns a copy of a JSON-like value with every string passed through the scrubber. The sink
 * scrubs reports *before* rendering: once Markdown escaping has turned `ghs_abc` into `ghs\_abc`
 * the scrubber can no longer recognise a registered secret by its value.
 */
export function scrubDeep<T>(value: T, scrubber: SecretScrubber): T {
  return walk(value, scrubber) as T;
}

function walk(value: unknown, scrubber: SecretScrubber): unknown {
  if (typeof value === "string") return scrubber.scrub(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, scrubber));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, scrubber)]));
  }
  return value;
}
