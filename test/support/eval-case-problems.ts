import { cpSync, existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { CaseManifest, type KnownFinding } from "@reviewbot/review/eval/suite-manifest";
import { gitText } from "./git-env.js";

const CASE_FILES = /^(case\.json|SOURCES\.md|pr\.patch|base\/.+)$/;

/**
 * Everything wrong with one tree case, as sentences (none: the case is sound). The case is
 * materialised (`base/` copied, `pr.patch` applied by git) and every known finding must lie inside
 * the file on its side and inside a hunk of the patch (written by `git diff` with three lines of
 * context, as GitHub shows a PR: a reviewer can only comment there). `work` is an empty directory
 * of the caller's.
 */
export function evalCaseProblems(caseDir: string, licencesDir: string, work: string): string[] {
  const problems: string[] = [];
  const id = basename(caseDir);
  for (const file of filesUnder(caseDir)) {
    if (lstatSync(join(caseDir, file)).isSymbolicLink()) problems.push(`${file} is a symbolic link`);
    else if (!CASE_FILES.test(file)) problems.push(`unexpected file ${file}`);
  }
  // The manifest as `reviewbot eval` reads it (its own schema); what follows is what it cannot check.
  const parsed = CaseManifest.safeParse(JSON.parse(readFileSync(join(caseDir, "case.json"), "utf8")));
  if (!parsed.success) return [...problems, `case.json: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`];
  const manifest = parsed.data;
  if (manifest.id !== id) problems.push("case.json's id is not its directory's name");
  if (manifest.source.kind !== "tree") problems.push("the source is not a tree");
  const known = manifest.known;
  problems.push(...sourcesProblems(readFileSync(join(caseDir, "SOURCES.md"), "utf8"), licencesDir));

  // One git process per case keeps the check to seconds: the patch is applied in a plain directory
  // (git apply works as patch(1) outside a repository); `reviewbot eval` commits base and head.
  const head = join(work, "head");
  cpSync(join(caseDir, "base"), head, { recursive: true });
  try {
    gitText(work, head, ["apply", "--binary", join(caseDir, "pr.patch")], { env: { GIT_CEILING_DIRECTORIES: work } });
  } catch (err) {
    return [...problems, `pr.patch does not apply: ${String(err)}`];
  }
  const hunks = hunksOf(readFileSync(join(caseDir, "pr.patch"), "utf8"));
  const trees = { LEFT: join(caseDir, "base"), RIGHT: head };
  for (const finding of known) problems.push(...knownProblems(finding, hunks, trees[finding.side]));
  return problems;
}

/** A hunk's line range on each side, by file (renamed files under each side's own path). */
interface Hunk {
  readonly path: string;
  readonly side: "LEFT" | "RIGHT";
  readonly first: number;
  readonly last: number;
}

/** The hunks of a patch as `git diff` writes it (`--- a/<path>`, `+++ b/<path>`, `@@` headers). */
function hunksOf(patch: string): Hunk[] {
  const hunks: Hunk[] = [];
  let left = "";
  let right = "";
  for (const line of patch.split("\n")) {
    // A file the PR adds has no LEFT path (`--- /dev/null`), one it deletes no RIGHT path.
    if (line.startsWith("diff --git ")) [left, right] = ["", ""];
    else if (line.startsWith("--- a/")) left = line.slice(6);
    else if (line.startsWith("+++ b/")) right = line.slice(6);
    const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (match === null) continue;
    const [oldStart, oldCount, newStart, newCount] = [match[1], match[2] ?? "1", match[3], match[4] ?? "1"].map(Number) as [number, number, number, number];
    hunks.push({ path: left, side: "LEFT", first: oldStart, last: oldStart + oldCount - 1 });
    hunks.push({ path: right, side: "RIGHT", first: newStart, last: newStart + newCount - 1 });
  }
  return hunks;
}

function knownProblems(finding: KnownFinding, hunks: readonly Hunk[], tree: string): string[] {
  const where = `${finding.side} ${finding.path}:${finding.startLine}-${finding.endLine}`;
  if (!Number.isInteger(finding.startLine) || finding.startLine < 1 || finding.endLine < finding.startLine) return [`${where}: not a line range`];
  const file = join(tree, finding.path);
  if (!existsSync(file)) return [`${where}: no such file on that side`];
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (finding.endLine > lines) return [`${where}: past the end of the file (${lines} lines)`];
  const inHunk = hunks.some(
    (hunk) => hunk.path === finding.path && hunk.side === finding.side && hunk.first <= finding.startLine && finding.endLine <= hunk.last,
  );
  return inHunk ? [] : [`${where}: not inside one hunk of the PR's diff`];
}

/** SOURCES.md names the project's URL, a commit on it, and licence texts kept in `licences/`. */
function sourcesProblems(sources: string, licencesDir: string): string[] {
  const problems: string[] = [];
  if (!/^- Licence: (MIT|BSD-[23]-Clause|Apache-2\.0|ISC)\b/m.test(sources)) problems.push("SOURCES.md names no permissive licence");
  if (!/https:\/\/github\.com\/[^/\s]+\/[^/\s]+\/commit\/[0-9a-f]{40}/.test(sources)) problems.push("SOURCES.md names no commit URL");
  const licences = [...sources.matchAll(/\.\.\/\.\.\/licences\/([\w.-]+)/g)].map((match) => match[1] ?? "");
  if (licences.length === 0) problems.push("SOURCES.md points at no licence text");
  for (const licence of licences) if (!existsSync(join(licencesDir, licence))) problems.push(`licence text ${licence} is missing`);
  return problems;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}
