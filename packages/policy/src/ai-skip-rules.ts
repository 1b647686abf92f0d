import { z } from "zod";

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

/** A glob over the path from the repository root, as the settings file may write it. */
export const Glob = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.\-/*?@+~ ]+$/, "may contain only letters, digits, spaces and . - _ / * ? @ + ~")
  .refine((glob) => !glob.startsWith("/") && !glob.split("/").some((part) => part === "" || part === "." || part === ".."), {
    error: "must be a relative path from the repository root without empty, . or .. segments",
  });

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

/** A matcher for `globs`: the first that matches a path, or null. Compiles each glob once. */
export function globMatcher(globs: readonly string[]): (path: string) => string | null {
  const patterns = globs.map((glob) => ({ glob, pattern: globPattern(glob) }));
  return (path) => patterns.find(({ pattern }) => pattern.test(path))?.glob ?? null;
}

// `**/` any directories (none included), a final `**` anything, `*` within one segment, `?` one
// character of a segment; everything else is itself.
function globPattern(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob.charAt(index);
    if (glob.startsWith("**/", index)) {
      source += "(?:[^/]*/)*";
      index += 2;
    } else if (glob.startsWith("**", index)) {
      source += ".*";
      index += 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\-]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
