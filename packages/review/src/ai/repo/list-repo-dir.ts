import { quote } from "@reviewbot/policy/config-error";
import { NulRecords } from "@reviewbot/overlay/nul-records";
import { runGit } from "@reviewbot/overlay/run-git";
import type { RepoReaderLimits } from "./repo-reader-limits.js";
import { checkRepoPath } from "./repo-path.js";
import { commitOf, type RepoSource, type Side } from "./repo-source.js";
import { lookupEntry, parseTreeEntry, refuseLinks, type EntryType } from "./tree-entry.js";
import { ToolInputError } from "../tools/tool-input-error.js";

export interface DirEntry {
  readonly name: string;
  readonly type: EntryType;
  /** Bytes, for files and symlinks. */
  readonly size?: number;
}

export interface ListDirResult {
  /** The directory listed; `""` is the root. */
  readonly path: string;
  readonly side: Side;
  readonly entries: readonly DirEntry[];
  /** Entries past `maxDirEntries`, counted but not listed. */
  readonly more: number;
}

/**
 * The entries of one directory of `side`'s commit, in git's order, at most `maxDirEntries` of them.
 * The tree is streamed: a directory of a million entries is counted, never held.
 */
export async function listRepoDir(
  source: RepoSource,
  request: { readonly path?: string | undefined; readonly side: Side },
  limits: RepoReaderLimits,
): Promise<ListDirResult> {
  const path = checkRepoPath("list_dir", request.path ?? "");
  const shown = quote(request.path ?? "", 200);
  const tree = await lookupEntry(source, commitOf(source, request.side), path);
  if (tree === null) throw new ToolInputError(`list_dir: ${shown} does not exist at ${request.side}`);
  refuseLinks("list_dir", shown, tree);
  if (tree.type !== "dir") throw new ToolInputError(`list_dir: ${shown} is a file; use read_file`);
  const entries: DirEntry[] = [];
  const records = new NulRecords();
  let count = 0;
  await runGit(source.context, source.gitDir, ["ls-tree", "-l", "-z", "--end-of-options", tree.oid], {
    onStdout: (chunk) => {
      for (const record of records.push(chunk)) {
        const entry = parseTreeEntry(record);
        if (entry === null) continue;
        count += 1;
        if (entries.length < limits.maxDirEntries) {
          const name = entry.name.toString("utf8");
          entries.push(entry.size === null ? { name, type: entry.type } : { name, type: entry.type, size: entry.size });
        }
      }
      return undefined;
    },
  });
  return { path, side: request.side, entries, more: count - entries.length };
}
