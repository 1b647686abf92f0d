import { z } from "zod";
import { fromZodIssues, requiredMessage, type CheckResult } from "./config-error.js";
import { Glob } from "./glob.js";

/** The most globs one `aiSkip.paths` may list. */
export const MAX_SKIP_GLOBS = 100;

/**
 * Which changed files the AI review leaves out, as the maintainers set them in the trusted
 * `.ai/review-tools.json` (`aiSkip`). Binary files are always left out: the model reads text.
 */
export interface AiSkipRules {
  /** The built-in name rules: lockfiles, `vendor/` and `node_modules/`, minified files, source maps. */
  readonly defaults: boolean;
  /** Whether a first line marking the file generated (`@generated`, "Code generated … DO NOT EDIT") leaves it out. */
  readonly generatedMarker: boolean;
  /** Globs over the path from the repository root (`*` within a name, `**` across directories, `?` one character). */
  readonly paths: readonly string[];
}

/** Today's rules, for a repository whose `.ai/` says nothing (or something invalid) about them. */
export const DEFAULT_AI_SKIP_RULES: AiSkipRules = { defaults: true, generatedMarker: true, paths: [] };

const AiSkipSpec = z.strictObject({
  defaults: z.boolean().default(true),
  generatedMarker: z.boolean().default(true),
  paths: z.array(Glob).max(MAX_SKIP_GLOBS, `has more than ${MAX_SKIP_GLOBS} globs`).default([]),
});

/**
 * Checks the `aiSkip` value of `.ai/review-tools.json`: an object with only `defaults` (boolean,
 * default true: keep the built-in name rules, false: only `paths`), `generatedMarker` (boolean,
 * default true) and `paths` (at most 100 globs). Anything else is an error naming the field.
 */
export function parseAiSkipRules(raw: unknown): CheckResult<AiSkipRules> {
  const parsed = AiSkipSpec.safeParse(raw, { error: requiredMessage });
  if (!parsed.success) return { ok: false, errors: fromZodIssues(parsed.error.issues, ["aiSkip"]) };
  return { ok: true, value: parsed.data };
}
