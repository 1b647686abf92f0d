import { member } from "./json-input.js";

/** One tool component's rules: by position and by `id` (the first of a repeated id wins). */
interface ComponentRules {
  readonly list: readonly unknown[];
  readonly byId: ReadonlyMap<unknown, unknown>;
}

/** Looks up a result's rule; built once per run (a scan per result would be results × rules). */
export type SarifRuleLookup = (result: unknown) => { readonly id: unknown; readonly descriptor: unknown };

/**
 * SARIF 2.1.0 §3.27.5–3.27.7 and §3.52: a result names its rule by `ruleId`, `rule.id`,
 * `ruleIndex` or `rule.index`. Without `rule.toolComponent` these index the driver's rules; with
 * it (§3.54) the rules are those of the component it references: `tool.extensions[index]`, or
 * the driver or extension whose `guid` or `name` it gives (CodeQL puts query-pack rules there).
 * A reference to a component the run does not have resolves to no descriptor, never to the
 * driver's rule at the same index.
 */
export function sarifRuleLookup(run: unknown): SarifRuleLookup {
  const driver = member(run, "tool", "driver");
  const listed = member(run, "tool", "extensions");
  const extensions: readonly unknown[] = Array.isArray(listed) ? listed : [];
  const components = new Map<unknown, ComponentRules>();
  const rulesOf = (component: unknown): ComponentRules | undefined => {
    if (component === undefined) return undefined;
    let rules = components.get(component);
    if (rules === undefined) {
      rules = indexRules(component);
      components.set(component, rules);
    }
    return rules;
  };
  const named = new Map<unknown, unknown>();
  for (const component of [driver, ...extensions]) {
    for (const key of [member(component, "guid"), member(component, "name")]) {
      if (typeof key === "string" && !named.has(key)) named.set(key, component);
    }
  }
  return (result) => {
    const reference = member(result, "rule", "toolComponent");
    const rules = rulesOf(reference === undefined ? driver : componentOf(reference, extensions, named));
    const index = member(result, "ruleIndex") ?? member(result, "rule", "index");
    const byIndex = typeof index === "number" ? rules?.list[index] : undefined;
    const id = member(result, "ruleId") ?? member(result, "rule", "id") ?? member(byIndex, "id");
    return { id, descriptor: byIndex ?? rules?.byId.get(id) };
  };
}

// §3.54.5: `index` (into `tool.extensions`) takes precedence; else `guid`, else `name`.
function componentOf(reference: unknown, extensions: readonly unknown[], named: ReadonlyMap<unknown, unknown>): unknown {
  const index = member(reference, "index");
  if (typeof index === "number") return Number.isInteger(index) && index >= 0 ? extensions[index] : undefined;
  const guid = member(reference, "guid");
  if (typeof guid === "string") return named.get(guid);
  const name = member(reference, "name");
  return typeof name === "string" ? named.get(name) : undefined;
}

function indexRules(component: unknown): ComponentRules {
  const rules = member(component, "rules");
  const list: readonly unknown[] = Array.isArray(rules) ? rules : [];
  const byId = new Map<unknown, unknown>();
  for (const rule of list) {
    const id = member(rule, "id");
    if (!byId.has(id)) byId.set(id, rule);
  }
  return { list, byId };
}
