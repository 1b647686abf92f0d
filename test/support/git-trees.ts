import { join } from "node:path";
import type { FixtureRepo } from "./git-fixture.js";

/**
 * Builders for trees git's porcelain would never produce: symlinks and gitlinks placed by hand,
 * names such as `.git` or `..` (through `git mktree`, which checks nothing), and trees that
 * reference one subtree many times. Hostile PRs are made of exactly such objects.
 */
export type EntryMode = "100644" | "100755" | "120000" | "160000" | "040000";

export interface TreeEntry {
  readonly mode: EntryMode;
  /** One path component; anything but '/' and NUL. */
  readonly name: string;
  readonly sha: string;
}

export interface PathEntry {
  readonly mode: EntryMode;
  /** A full path inside the tree, placed through the index. */
  readonly path: string;
  readonly sha: string;
}

const TYPES: Readonly<Record<EntryMode, string>> = {
  "100644": "blob",
  "100755": "blob",
  "120000": "blob",
  "160000": "commit",
  "040000": "tree",
};

/** Writes a blob (file content, or a symlink's target) and returns its id. */
export function writeBlob(repo: FixtureRepo, content: string | Buffer): string {
  return repo.git(["hash-object", "-w", "--stdin"], { input: content });
}

/** One tree object from raw entries, exactly as given (`git mktree` validates no names). */
export function makeTree(repo: FixtureRepo, entries: readonly TreeEntry[]): string {
  const input = entries.map((entry) => `${entry.mode} ${TYPES[entry.mode]} ${entry.sha}\t${entry.name}\0`).join("");
  return repo.git(["mktree", "-z"], { input });
}

/** A chain of directories `names[0]/names[1]/…` ending in `leaf`, built bottom-up with mktree. */
export function nestTree(repo: FixtureRepo, names: readonly string[], leaf: TreeEntry): string {
  let entry = leaf;
  for (const name of [...names].reverse()) {
    entry = { mode: "040000", name, sha: makeTree(repo, [entry]) };
  }
  return makeTree(repo, [entry]);
}

/**
 * `treeish` with entries set (or removed, for `mode: null`) at full paths, through a scratch index:
 * `update-index --index-info -z` takes any byte in a path and any mode, including 120000 and 160000.
 */
export function treeWithPaths(repo: FixtureRepo, treeish: string, entries: readonly PathEntry[], removals: readonly string[] = []): string {
  const env = { GIT_INDEX_FILE: join(repo.dir, ".git", `fixture-index-${process.pid}`) };
  repo.git(["read-tree", treeish], { env });
  const zero = "0".repeat(40);
  const lines = [...removals.map((path) => `0 ${zero}\t${path}\0`), ...entries.map((entry) => `${entry.mode} ${entry.sha}\t${entry.path}\0`)];
  repo.git(["update-index", "-z", "--index-info"], { input: lines.join(""), env });
  return repo.git(["write-tree", "--missing-ok"], { env });
}

/**
 * A "git bomb": `depth` levels, each of `fanout` entries naming the same subtree, over one small
 * blob. A handful of objects that a checkout would expand to fanout^depth files.
 */
export function gitBombTree(repo: FixtureRepo, fanout: number, depth: number): string {
  let entry: TreeEntry = { mode: "100644", name: "f", sha: writeBlob(repo, "boom\n") };
  for (let level = 0; level < depth; level += 1) {
    const entries = Array.from({ length: fanout }, (_, i): TreeEntry => ({ ...entry, name: `d${i}` }));
    entry = { mode: "040000", name: "", sha: makeTree(repo, entries) };
  }
  return entry.sha;
}

/** The top-level entries of `treeish`, as {@link makeTree} takes them. */
export function rootEntries(repo: FixtureRepo, treeish: string): TreeEntry[] {
  const records = repo
    .gitBytes(["ls-tree", "-z", treeish])
    .toString("utf8")
    .split("\0")
    .filter((r) => r !== "");
  return records.map((record) => {
    const tab = record.indexOf("\t");
    const [mode = "", , sha = ""] = record.slice(0, tab).split(" ");
    return { mode: mode as EntryMode, name: record.slice(tab + 1), sha };
  });
}

/** `treeish`'s top level with `entries` added, replacing any entry of the same name. */
export function withRootEntries(repo: FixtureRepo, treeish: string, entries: readonly TreeEntry[]): string {
  const names = new Set(entries.map((entry) => entry.name));
  return makeTree(repo, [...rootEntries(repo, treeish).filter((entry) => !names.has(entry.name)), ...entries]);
}
