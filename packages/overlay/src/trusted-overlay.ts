import { chmod, lstat, mkdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { readBlobs } from "./read-blobs.js";
import { runGit, type GitContext } from "./run-git.js";
import { splitNul } from "./nul-records.js";

/**
 * `ref`: `.ai/` is the head commit's of the config ref (the repository's default branch); `base`:
 * the PR's base commit's (the CLI without a config ref); `absent`: that commit has none, so there is
 * none; `failed-closed`: it could not be read, so there is none either.
 */
export type OverlaySource = "ref" | "base" | "absent" | "failed-closed";

/** The commit whose `.ai/` is trusted, and how it was chosen: the head of a config ref, or the base. */
export interface ConfigCommit {
  readonly from: "ref" | "base";
  /** The config ref, or the base ref, as requested (`refs/heads/main`, `main`). */
  readonly ref: string;
  readonly sha: string;
}

export interface OverlayResult {
  readonly source: OverlaySource;
  readonly failedClosed: boolean;
  /** The commit `.ai/` was read from (or failed to be); null when none could be fetched. */
  readonly commit: ConfigCommit | null;
  /** Files written under .ai/, as repository paths. */
  readonly files: readonly string[];
  /** Trusted entries not materialised (gitlinks, symlinks leaving .ai/), with the reason. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  readonly reason?: string;
}

const AI_DIR = ".ai";
/** The trusted config is small; a trusted .ai/ past these sizes is refused rather than written. */
const MAX_AI_FILES = 1000;
const MAX_AI_BYTES = 16 * 1024 * 1024;

interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly sha: string;
  readonly path: string;
}

/**
 * Makes `<worktree>/.ai` exactly the trusted commit's `.ai/` (docs/architecture.md, layer 1: config
 * comes from upstream, never the PR head): the default branch's head, never the PR's base, which
 * may be a stale branch with a weaker config. Whatever the PR left there (files, a symlink, a
 * gitlink) is removed without following links; the trusted entries are then written from raw blob
 * bytes, so no `.gitattributes` of the PR can filter them. When the commit cannot be read, `.ai/`
 * stays removed and the result says the overlay failed closed.
 */
export async function applyTrustedOverlay(context: GitContext, gitDir: string, worktree: string, commit: ConfigCommit | null): Promise<OverlayResult> {
  const target = join(worktree, AI_DIR);
  // fs.rm removes a symlink itself, never what it points to.
  await rm(target, { recursive: true, force: true });
  if (commit === null) return failedClosed(null, "the trusted commit could not be fetched");
  try {
    const entries = await listTrustedAi(context, gitDir, commit.sha);
    if (entries === null) return { source: "absent", failedClosed: false, commit, files: [], skipped: [] };
    return await writeEntries(context, gitDir, worktree, commit, entries);
  } catch (err) {
    await rm(target, { recursive: true, force: true });
    return failedClosed(commit, err instanceof Error ? err.message : String(err));
  }
}

function failedClosed(commit: ConfigCommit | null, reason: string): OverlayResult {
  return { source: "failed-closed", failedClosed: true, commit, files: [], skipped: [], reason };
}

/** Lists the commit's `.ai/` recursively, or null when it has no `.ai` directory. */
async function listTrustedAi(context: GitContext, gitDir: string, sha: string): Promise<TreeEntry[] | null> {
  const root = await runGit(context, gitDir, ["ls-tree", "-z", "--end-of-options", sha, "--", AI_DIR]);
  const aiEntry = splitNul(root.stdout)
    .map(parseEntry)
    .find((entry) => entry.path === AI_DIR);
  if (aiEntry?.type !== "tree") return null;
  const listing = await runGit(context, gitDir, ["ls-tree", "-r", "-z", "--end-of-options", aiEntry.sha]);
  const entries = splitNul(listing.stdout).map(parseEntry);
  if (entries.length > MAX_AI_FILES) throw new Error(`the trusted .ai/ has more than ${MAX_AI_FILES} entries`);
  return entries;
}

function parseEntry(record: string): TreeEntry {
  const tab = record.indexOf("\t");
  const [mode = "", type = "", sha = ""] = record.slice(0, tab).split(" ");
  return { mode, type, sha, path: record.slice(tab + 1) };
}

async function writeEntries(
  context: GitContext,
  gitDir: string,
  worktree: string,
  commit: ConfigCommit,
  entries: readonly TreeEntry[],
): Promise<OverlayResult> {
  const blobs = await readBlobs(
    context,
    gitDir,
    entries.filter((entry) => entry.type === "blob").map((entry) => entry.sha),
    MAX_AI_BYTES,
  );
  const files: string[] = [];
  const skipped: { path: string; reason: string }[] = [];
  await mkdir(join(worktree, AI_DIR), { mode: 0o755 });
  for (const entry of entries) {
    assertSafeRelative(entry.path);
    const repoPath = `${AI_DIR}/${entry.path}`;
    const destination = join(worktree, repoPath);
    const content = blobs.get(entry.sha);
    if (entry.type !== "blob" || content === undefined) {
      skipped.push({ path: repoPath, reason: `${entry.type} entries are not materialised` });
      continue;
    }
    if (entry.path.includes("\uFFFD")) {
      // Names are decoded as UTF-8; writing a lossy name would break byte-identity, so refuse it.
      skipped.push({ path: repoPath, reason: "the name is not valid UTF-8" });
      continue;
    }
    await mkdir(dirname(destination), { recursive: true, mode: 0o755 });
    if (entry.mode === "120000") {
      const linkTarget = content.toString("utf8");
      if (!staysInsideAi(entry.path, linkTarget)) {
        skipped.push({ path: repoPath, reason: `symlink target ${JSON.stringify(linkTarget)} leaves .ai/` });
        continue;
      }
      await symlink(linkTarget, destination);
    } else {
      // "wx": O_CREAT|O_EXCL, which also refuses to follow a symlink at the final component.
      await writeFile(destination, content, { flag: "wx", mode: 0o644 });
      if (entry.mode === "100755") await chmod(destination, 0o755);
    }
    files.push(repoPath);
  }
  const escaping = await removeEscapingLinks(join(worktree, AI_DIR), files);
  skipped.push(...escaping.map((path) => ({ path, reason: "symlink resolves outside .ai/" })));
  return { source: commit.from, failedClosed: false, commit, files: files.filter((f) => !escaping.includes(f)), skipped };
}

/**
 * The lexical check cannot see a link that escapes through another link (`self -> .`,
 * `via -> self/..`), so every written link is also resolved by the kernel; links that leave the
 * real `.ai/` or dangle are removed, repeating until none does (removing one can break another).
 */
async function removeEscapingLinks(aiDir: string, files: readonly string[]): Promise<string[]> {
  const root = await realpath(aiDir);
  const removed: string[] = [];
  for (let changed = true; changed;) {
    changed = false;
    for (const repoPath of files) {
      const path = join(dirname(aiDir), repoPath);
      if (removed.includes(repoPath) || !(await lstat(path)).isSymbolicLink()) continue;
      const resolved = await realpath(path).catch(() => null);
      if (resolved !== null && (resolved === root || resolved.startsWith(`${root}/`))) continue;
      await rm(path);
      removed.push(repoPath);
      changed = true;
    }
  }
  return removed;
}

/** Git's fsck already refuses such trees; this is the second line, not the first. */
function assertSafeRelative(path: string): void {
  const parts = path.split("/");
  if (path.startsWith("/") || parts.some((p) => p === "" || p === "." || p === ".." || p.toLowerCase() === ".git")) {
    throw new Error(`the trusted .ai/ contains an unsafe path ${JSON.stringify(path)}`);
  }
}

function staysInsideAi(linkPath: string, linkTarget: string): boolean {
  if (linkTarget.startsWith("/") || linkTarget.includes("\0")) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(linkPath), linkTarget));
  return resolved !== ".." && !resolved.startsWith("../");
}
