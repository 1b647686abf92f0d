import type { SeverityMap } from "@reviewbot/policy/helper-spec";
import type { Severity } from "@reviewbot/contracts/severity";

/**
 * The severity of one finding. The helper's map is consulted by rule id, then by the tool's own
 * level name (`warning`, `convention`, `INFO`), then `default`; without a match the parser's
 * own translation of the tool's level (`fallback`) is used.
 */
export function resolveSeverity(map: SeverityMap | undefined, rule: string | null, toolLevel: string | null, fallback: Severity): Severity {
  if (map === undefined) return fallback;
  for (const key of [rule, toolLevel, "default"]) {
    // `hasOwn`, not `in` or indexing: a rule named `constructor` or `__proto__` must not reach
    // Object.prototype (the map is validated, but the rule id comes from untrusted output).
    if (key !== null && Object.hasOwn(map, key)) {
      const level = map[key];
      if (level !== undefined) return level;
    }
  }
  return fallback;
}
