import { z } from "zod";
import { Glob } from "./glob.js";

/** The most globs one `aiSkip.paths` (or `aiMustRead`) may list. */
export const MAX_SKIP_GLOBS = 100;

/**
 * Which changed files the AI review leaves out, as the maintainers set them in the trusted
 * `.ai/review-config.json` (`aiSkip` and `aiMustRead`, review-settings.ts). Binary files are always
 * left out: the model reads text.
 */
export interface AiSkipRules {
  /** The built-in name rules: lockfiles, `vendor/` and `node_modules/`, minified files, source maps. */
  readonly defaults: boolean;
  /** Whether a first line marking the file generated (`@generated`, "Code generated … DO NOT EDIT") leaves it out. */
  readonly generatedMarker: boolean;
  /** Globs over the path from the repository root (`*` within a name, `**` across directories, `?` one character). */
  readonly paths: readonly string[];
  /** Globs of files the AI review reads even when a rule above would leave them out (never a binary file). */
  readonly mustRead: readonly string[];
}

/** Today's rules, for a repository whose `.ai/` says nothing (or something invalid) about them. */
export const DEFAULT_AI_SKIP_RULES: AiSkipRules = { defaults: true, generatedMarker: true, paths: [], mustRead: [] };

/**
 * The `aiSkip` value of the settings: an object with only `defaults` (boolean, default true: keep
 * the built-in name rules, false: only `paths`), `generatedMarker` (boolean, default true) and
 * `paths` (at most 100 globs).
 */
export const AiSkipSpec = z.strictObject({
  defaults: z.boolean().default(true),
  generatedMarker: z.boolean().default(true),
  paths: z.array(Glob).max(MAX_SKIP_GLOBS, `has more than ${MAX_SKIP_GLOBS} globs`).default([]),
});
