import { splitNulBuffers } from "@reviewbot/overlay/nul-records";
import { runGit } from "@reviewbot/overlay/run-git";
import { LITERAL_PATHSPECS, type RepoSource } from "./repo-source.js";
import { ToolInputError } from "../tools/tool-input-error.js";

export type EntryType = "file" | "dir" | "symlink" | "submodule";

/** One entry of a tree as `git ls-tree -l -z` prints it. */
export interface TreeEntry {
  readonly type: EntryType;
  readonly oid: string;
  /** Blob size in bytes; null for trees and submodules. */
  readonly size: number | null;
  /** The name (or, for a path lookup, the path) as bytes: names need not be UTF-8. */
  readonly name: Buffer;
}

/** One path's entry is one record of at most a few KiB; anything more is not an answer to it. */
const MAX_LOOKUP_OUTPUT = 64 * 1024;

/**
 * Parses one `<mode> SP <type> SP <oid> SP+ <size> TAB <name>` record. The type comes from the
 * mode: 120000 is a symlink whatever else the record says, 160000 a gitlink (submodule).
 */
export function parseTreeEntry(record: Buffer): TreeEntry | null {
  const tab = record.indexOf(9);
  if (tab === -1) return null;
  const [mode = "", , oid = "", size = ""] = record.subarray(0, tab).toString("latin1").split(/ +/, 4);
  const type: EntryType = mode === "120000" ? "symlink" : mode === "160000" ? "submodule" : mode === "040000" ? "dir" : "file";
  const bytes = Number(size);
  return { type, oid, size: size === "-" || !Number.isSafeInteger(bytes) ? null : bytes, name: record.subarray(tab + 1) };
}

/**
 * The entry at `path` (checked by `checkRepoPath`; `""` is the root) in `commit`'s tree, or null.
 * `ls-tree` descends into the leading directories itself and never through a symlink (a symlink
 * is a blob: `link/passwd` simply does not exist), and the pathspec is literal.
 */
export async function lookupEntry(source: RepoSource, commit: string, path: string): Promise<TreeEntry | null> {
  if (path === "") return { type: "dir", oid: commit, size: null, name: Buffer.alloc(0) };
  // No `--` here: after --end-of-options, ls-tree would take it for a path.
  const args = ["ls-tree", "-l", "-z", "--full-tree", "--end-of-options", commit, path];
  const { stdout } = await runGit(source.context, source.gitDir, args, { env: LITERAL_PATHSPECS, maxOutputBytes: MAX_LOOKUP_OUTPUT });
  const wanted = Buffer.from(path, "utf8");
  for (const record of splitNulBuffers(stdout)) {
    const entry = parseTreeEntry(record);
    if (entry?.name.equals(wanted) === true) return entry;
  }
  return null;
}

/**
 * Refuses what no tool reads through: a symlink (its target may name anything, `/proc/self/environ`
 * or `../../etc/passwd`; it is never followed) and a submodule (its commit is not in this repository).
 */
export function refuseLinks(tool: string, shownPath: string, entry: TreeEntry): void {
  if (entry.type === "symlink") throw new ToolInputError(`${tool}: ${shownPath} is a symlink; symlinks are not followed`);
  if (entry.type === "submodule") {
    throw new ToolInputError(`${tool}: ${shownPath} is a submodule (a link to another repository's commit); its files are not in this repository`);
  }
}
