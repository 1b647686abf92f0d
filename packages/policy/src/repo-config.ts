import { z } from "zod";
import { configError, fail, formatPath, fromZodIssues, quote, requiredMessage, ROOT_PATH, type CheckResult, type ConfigError } from "./config-error.js";
import { HelperSpec } from "./helper-spec.js";
import type { OperatorPolicy } from "./operator-policy.js";
import { resolveHelper, type ResolvedHelper } from "./resolve-helper.js";

/** The largest `.ai/review-tools.json` accepted, in UTF-8 bytes. */
export const MAX_CONFIG_BYTES = 256 * 1024;
/** The most helpers one config may define. */
export const MAX_HELPERS = 50;

// Helpers are checked one by one below, so that one bad helper does not sink the others.
const RepoConfigFile = z.strictObject({
  helpers: z.array(z.unknown()).max(MAX_HELPERS, `has more than ${MAX_HELPERS} helpers`),
  // `aiSkip` moved to the settings file (review-settings.ts): said so by name, never applied here.
  aiSkip: z.unknown().optional(),
});

/** The helpers that passed every rule, and one error per problem found. */
export interface RepoConfig {
  readonly helpers: readonly ResolvedHelper[];
  readonly errors: readonly ConfigError[];
}

/**
 * Parses `.ai/review-tools.json` (as it is on the base commit) against the operator's policy.
 * Never throws: a file that is too large, not JSON, not an object, has an unknown top-level key,
 * or whose `helpers` is not an array of at most 50 yields errors and no helpers. An `aiSkip` key
 * is reported as moved to `.ai/review-config.json` and not applied. Each helper is checked on its own: a helper with a bad value, an unknown key or a name used twice
 * (ignoring case; every holder of the name is refused) is reported, and the others still run.
 */
export function parseRepoConfig(text: string, operator: OperatorPolicy): RepoConfig {
  const document = parseDocument(text);
  if (!document.ok) return { helpers: [], errors: document.errors };
  const specs = document.value.helpers.map((raw) => HelperSpec.safeParse(raw, { error: requiredMessage }));
  const names = specs.map((spec) => (spec.success ? spec.data.name.toLowerCase() : undefined));
  const helpers: ResolvedHelper[] = [];
  const errors: ConfigError[] = [];
  specs.forEach((spec, index) => {
    const result = spec.success
      ? checkHelper(spec.data, index, names, operator)
      : { ok: false as const, errors: fromZodIssues(spec.error.issues, ["helpers", index]) };
    if (result.ok) helpers.push(result.value);
    else errors.push(...result.errors);
  });
  if (document.value.movedAiSkip) errors.push(configError("aiSkip", "has moved to .ai/review-config.json and is not applied here"));
  return { helpers, errors };
}

function checkHelper(spec: HelperSpec, index: number, names: readonly (string | undefined)[], operator: OperatorPolicy): CheckResult<ResolvedHelper> {
  const field = formatPath(["helpers", index]);
  // Names become the LLM's tool names and sandbox labels, where case may not distinguish them.
  const name = spec.name.toLowerCase();
  const others = names.flatMap((other, i) => (other === name && i !== index ? [formatPath(["helpers", i])] : []));
  if (others.length > 0) {
    const reason = `is also the name of ${others.join(", ")} (names must be unique, ignoring case)`;
    return fail(`${field}.name`, `${quote(spec.name)} ${reason}`);
  }
  return resolveHelper(spec, field, operator);
}

function parseDocument(text: string): CheckResult<{ readonly helpers: readonly unknown[]; readonly movedAiSkip: boolean }> {
  // A string never has more UTF-16 units than UTF-8 bytes, so the cheap test can come first.
  const bytes = text.length > MAX_CONFIG_BYTES ? text.length : new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_CONFIG_BYTES) {
    return fail(ROOT_PATH, `is at least ${bytes} bytes; at most ${MAX_CONFIG_BYTES} are allowed`);
  }
  let json: unknown;
  try {
    // Editors on Windows save a byte-order mark, which JSON.parse refuses.
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return fail(ROOT_PATH, `is not valid JSON: ${quote(reason, 200)}`);
  }
  const parsed = RepoConfigFile.safeParse(json, { error: requiredMessage });
  if (!parsed.success) return { ok: false, errors: fromZodIssues(parsed.error.issues) };
  return { ok: true, value: { helpers: parsed.data.helpers, movedAiSkip: parsed.data.aiSkip !== undefined } };
}
