import { AppError } from "@reviewbot/core/errors";
import { DIFF_FLAGS, type PullDiff } from "@reviewbot/overlay/pull-diff";
import { runGit } from "@reviewbot/overlay/run-git";
import type { PatchedFile } from "./plan-chunks.js";
import type { RepoSource } from "../repo/repo-source.js";

/** The most patch text read for planning; a larger PR fails the AI review with a note, not the worker. */
export const MAX_PR_PATCH_BYTES = 48 * 1024 * 1024;

/**
 * Each changed file's section of the PR's patch (merge base to head, the flags of
 * `computePullDiff`), paired with the diff's file list. git writes one section per file, in the
 * order of the raw diff, each starting with a `diff --git` line; a content line never starts so
 * (it starts with " ", "+", "-" or "\"), so splitting there cannot be fooled by the PR's text.
 *
 * @throws AppError `GIT_FAILED` when the sections do not pair with the diff's files.
 */
export async function readPrPatches(source: RepoSource, diff: PullDiff): Promise<PatchedFile[]> {
  const { stdout } = await runGit(
    source.context,
    source.gitDir,
    ["diff", "--patch", "--unified=3", "--src-prefix=a/", "--dst-prefix=b/", ...DIFF_FLAGS, "--end-of-options", source.fromSha, source.headSha],
    { maxOutputBytes: MAX_PR_PATCH_BYTES },
  );
  const sections = splitPatchSections(stdout.toString("utf8"));
  if (sections.length !== diff.files.length) {
    throw new AppError("GIT_FAILED", `the PR's patch has ${sections.length} file sections for ${diff.files.length} changed files`);
  }
  return diff.files.map((file, index) => {
    const patch = sections[index] ?? "";
    const firstLine = headFirstLine(patch);
    return { path: file.path, binary: file.binary, patch, ...(firstLine === null ? {} : { firstLine }) };
  });
}

const FIRST_HUNK_AT_LINE_1 = /^@@ -\d+(?:,\d+)? \+1(?:,\d+)? @@/m;

/**
 * The head version's first line when the patch shows it (its first hunk starts at the head's line
 * 1: the first line of that hunk that is not a removal), else null: a generator's marker is
 * judged from what the PR changed, never read from the work tree.
 */
export function headFirstLine(patch: string): string | null {
  const hunk = FIRST_HUNK_AT_LINE_1.exec(patch);
  if (hunk === null) return null;
  const rest = patch.slice(hunk.index);
  // The lines after the hunk header: removals (and "\ No newline" notes) come before the head's line 1.
  for (const line of rest.slice(rest.indexOf("\n") + 1).split("\n", 200)) {
    if (line.startsWith("+") || line.startsWith(" ")) return line.slice(1);
    if (!line.startsWith("-") && !line.startsWith("\\")) return null;
  }
  return null;
}

/**
 * A patch's file sections, each from its `diff --git` line to the next: one scan, whatever the
 * lines' lengths (the patch is the PR's bytes). Text before the first section (none from git) is
 * dropped.
 */
export function splitPatchSections(text: string): string[] {
  const opens = text.startsWith("diff --git ");
  let start = opens ? 0 : text.indexOf("\ndiff --git ") + 1;
  if (start === 0 && !opens) return [];
  const sections: string[] = [];
  for (;;) {
    const next = text.indexOf("\ndiff --git ", start);
    sections.push(text.slice(start, next === -1 ? text.length : next + 1));
    if (next === -1) return sections;
    start = next + 1;
  }
}
