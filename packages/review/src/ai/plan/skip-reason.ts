import type { AiSkipRules } from "@reviewbot/policy/ai-skip-rules";
import { globMatcher } from "@reviewbot/policy/glob";

/** A changed file as the AI review's planner sees it, before it decides to read it. */
export interface ReviewableFile {
  readonly path: string;
  readonly binary: boolean;
  /**
   * The head version's first line, when the caller read it: generators mark their output there
   * ("@generated", Go's "Code generated … DO NOT EDIT."). `.gitattributes`' `linguist-generated`
   * is not consulted: names and this line are all the planner knows.
   */
  readonly firstLine?: string;
}

// Files a tool writes from other files: reviewing them costs tokens and finds nothing a person
// could act on in the PR (the fix belongs in the manifest or the generator's input).
const LOCKFILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "bun.lock",
  "Cargo.lock",
  "go.sum",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "composer.lock",
  "Gemfile.lock",
  "Podfile.lock",
  "pubspec.lock",
  "mix.lock",
  "flake.lock",
  "packages.lock.json",
]);
const VENDORED = /(?:^|\/)(?:vendor|node_modules)\//;
const MINIFIED = /\.min\.(?:js|mjs|cjs|css)$/;
const SOURCE_MAP = /\.map$/;
/** The most of the first line looked at: a marker sits near its start; a minified line is long. */
const FIRST_LINE_CHARS = 300;
const GENERATED_MARK = /@generated\b|\bCode generated\b.{0,200}\bDO NOT EDIT\b/;

/** Why the AI review leaves a file out, or null to review it. */
export type SkipReason = (file: ReviewableFile) => string | null;

/**
 * The skip decision under the maintainers' `rules` (the trusted `.ai/`'s `aiSkip`, never the
 * PR's): binary files always; with `defaults`, lockfiles, vendored dependencies (`vendor/`,
 * `node_modules/`), minified files and source maps by name; with `generatedMarker`, files whose
 * first line marks them generated; and any path one of `paths` matches; but never a text file one
 * of `mustRead` matches. A skipped file is one the model did not read, so the review that skips it
 * is at most `partial` (ai-review.ts).
 */
export function skipReasonUnder(rules: AiSkipRules): SkipReason {
  const matching = globMatcher(rules.paths);
  const mustRead = globMatcher(rules.mustRead);
  return (file) => {
    if (file.binary) return "binary file";
    if (mustRead(file.path) !== null) return null;
    const glob = matching(file.path);
    if (glob !== null) return `skipped by .ai/ rule ${glob}`;
    if (rules.defaults) {
      const name = file.path.slice(file.path.lastIndexOf("/") + 1);
      if (LOCKFILES.has(name)) return "lockfile";
      if (VENDORED.test(file.path)) return "vendored dependency";
      if (MINIFIED.test(name)) return "minified file";
      if (SOURCE_MAP.test(name)) return "source map";
    }
    if (rules.generatedMarker && file.firstLine !== undefined && GENERATED_MARK.test(file.firstLine.slice(0, FIRST_LINE_CHARS)))
      return "generated file (marked in its first line)";
    return null;
  };
}
