import { createHash } from "node:crypto";
import { globMatcher } from "@reviewbot/policy/glob";
import { estimateTokens } from "./estimate-tokens.js";
import type { ReviewableFile, SkipReason } from "./skip-reason.js";

export interface PatchedFile extends ReviewableFile {
  /** The file's section of `git diff --patch`: its header lines (`diff --git`, `---`, `+++`), then its hunks. */
  readonly patch: string;
}

/** A file's part in one chunk: its header and some or all of its hunks. */
export interface ChunkFile {
  readonly path: string;
  readonly patch: string;
  /**
   * Set when the one hunk of this part was larger than a chunk and only its start is here; says
   * so in our words and numbers only (no text of the PR), so it may stand outside an envelope.
   */
  readonly note: string | null;
}

export interface Chunk {
  /**
   * A hash of the chunk's paths and patch text: the same content gets the same id in every run.
   * A cache key adds what else the answer depends on (repository, model, prompt).
   */
  readonly id: string;
  readonly files: readonly ChunkFile[];
  /** The names of the per-path rules this chunk carries (those matching one of its files), in the plan's order of rules. */
  readonly rules: readonly string[];
  /** Its patch text and the rules it carries. */
  readonly estimatedTokens: number;
}

/** A per-path rule as the planner sees it: the tokens it adds to every chunk holding a file its globs match. */
export interface PlannedRule {
  readonly name: string;
  readonly globs: readonly string[];
  readonly tokens: number;
}

/** The skip reason of a file without hunks (a rename, a mode change, an empty file): nothing in it to read. */
export const NO_TEXT_CHANGES = "no text changes";

export interface ChunkPlan {
  readonly chunks: readonly Chunk[];
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/**
 * Plans the model calls of a review: leaves out what `options.skip` names and files without
 * hunks, sorts the rest by path (related files together; the same plan for the same PR), and
 * packs them, in order, into chunks of at most `maxTokens` estimated tokens of patch text (the
 * caller keeps room for its prompt). A file is split only when it alone exceeds the budget, and
 * then at hunk boundaries, each part repeating the file's header. A single hunk over the budget
 * is cut at a line boundary to fit and its part carries a `note`: the model reviews the start of
 * it rather than a chunk that no model call can take. A chunk carries the `rules` matching any of
 * its files, and their tokens count in its budget: a file's parts are sized to leave room for its
 * own rules, and a file whose rules the open chunk lacks goes to a new chunk when they would not
 * fit. Linear in the patches' length (times the rules' globs per path).
 */
export function planChunks(
  files: readonly PatchedFile[],
  options: { readonly maxTokens: number; readonly skip: SkipReason; readonly rules?: readonly PlannedRule[] },
): ChunkPlan {
  const budget = Math.max(1, Math.floor(options.maxTokens));
  const rules = (options.rules ?? []).map((rule) => ({ ...rule, matches: globMatcher(rule.globs) }));
  const skipped: { path: string; reason: string }[] = [];
  const chunks: Chunk[] = [];
  let open: ChunkFile[] = [];
  let openRules = new Set<number>();
  let openTokens = 0;
  const close = () => {
    const names = [...openRules].sort((a, b) => a - b).map((index) => rules[index]?.name ?? "");
    if (open.length > 0) chunks.push({ id: chunkId(open), files: open, rules: names, estimatedTokens: openTokens });
    open = [];
    openRules = new Set();
    openTokens = 0;
  };
  const tokensOf = (indexes: readonly number[]) => indexes.reduce((sum, index) => sum + (rules[index]?.tokens ?? 0), 0);
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const reason = options.skip(file);
    const own = reason === null ? rules.flatMap((rule, index) => (rule.matches(file.path) === null ? [] : [index])) : [];
    const parts = reason === null ? split(file, Math.max(1, budget - tokensOf(own))) : [];
    if (parts.length === 0) {
      skipped.push({ path: file.path, reason: reason ?? NO_TEXT_CHANGES });
      continue;
    }
    for (const part of parts) {
      const tokens = estimateTokens(part.patch);
      if (openTokens + tokens + tokensOf(own.filter((index) => !openRules.has(index))) > budget) close();
      openTokens += tokens + tokensOf(own.filter((index) => !openRules.has(index)));
      open.push(part);
      for (const index of own) openRules.add(index);
    }
  }
  close();
  return { chunks, skipped };
}

// The file as one part when it fits, else as parts of consecutive hunks that each fit. Hunks are
// found by offset and a part is one slice of the patch: no string per hunk, no concatenation.
function split(file: PatchedFile, budget: number): ChunkFile[] {
  const { patch } = file;
  const first = firstHunk(patch);
  if (first === -1) return [];
  if (estimateTokens(patch) <= budget) return [{ path: file.path, patch, note: null }];
  const header = patch.slice(0, first);
  // The characters that estimate to `budget` tokens (estimateTokens counts four a token).
  const room = budget * 4 - header.length;
  const parts: ChunkFile[] = [];
  // The open part is the hunks in [open, start); the hunk at hand is [start, end).
  let open = first;
  for (let start = first; start < patch.length;) {
    const next = patch.indexOf("\n@@ ", start);
    const end = next === -1 ? patch.length : next + 1;
    if (end - open > room) {
      if (start > open) parts.push({ path: file.path, patch: header + patch.slice(open, start), note: null });
      open = start;
      if (end - start > room) {
        parts.push(cutHunk(file.path, header, patch.slice(start, end), room, budget));
        open = end;
      }
    }
    start = end;
  }
  if (open < patch.length) parts.push({ path: file.path, patch: header + patch.slice(open), note: null });
  return parts;
}

/**
 * Where a patch's first hunk starts, -1 without one. Every line of a hunk body starts with " ",
 * "+", "-" or "\\", so a line starting "@@ " is always a header: a content line reading "+@@ …" or
 * "++ x" is not.
 */
function firstHunk(patch: string): number {
  if (patch.startsWith("@@ ")) return 0;
  const at = patch.indexOf("\n@@ ");
  return at === -1 ? -1 : at + 1;
}

const NEW_START = /^@@ -\d+(?:,\d+)? \+(\d+)/;

// The start of a hunk larger than a chunk: whole lines up to `room` characters, but always its
// header line and something of the line after it (a hunk of one huge line is cut inside it).
function cutHunk(path: string, header: string, hunk: string, room: number, budget: number): ChunkFile {
  const firstLineEnd = hunk.indexOf("\n") + 1;
  const limit = Math.max(room, firstLineEnd + 1);
  const lastNewline = hunk.lastIndexOf("\n", limit - 1);
  let end = Math.min(lastNewline >= firstLineEnd ? lastNewline + 1 : limit, hunk.length);
  // Never between the two halves of a surrogate pair.
  const last = hunk.charCodeAt(end - 1);
  if (end < hunk.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  const line = NEW_START.exec(hunk)?.[1];
  const note = `the hunk ${line === undefined ? "" : `starting at line ${line} `}is larger than a chunk (${budget} tokens): only its first ${end} of ${hunk.length} characters are shown`;
  return { path, patch: header + hunk.slice(0, end), note: end < hunk.length ? note : null };
}

function chunkId(files: readonly ChunkFile[]): string {
  const hash = createHash("sha256");
  // Lengths first, so that no two different lists of files hash the same text.
  for (const file of files) hash.update(`${file.path.length}:${file.path}${file.patch.length}:${file.patch}`);
  return hash.digest("hex").slice(0, 32);
}
