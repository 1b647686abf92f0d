import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { gitText } from "./git-env.js";
import type { FixtureRepo } from "./git-fixture.js";

/** Every non-directory path below `dir`, relative, sorted (symlinks are listed, never followed). */
export function listFiles(dir: string, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...listFiles(dir, path));
    else found.push(path);
  }
  return found.sort();
}

/** `<mode> <blob id>` of each work-tree entry below `.ai`, hashed by git without any filter. */
function worktreeEntries(repo: FixtureRepo, worktree: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const path of listFiles(worktree, ".ai")) {
    const absolute = join(worktree, path);
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) {
      const id = gitText(repo.home, repo.home, ["hash-object", "--no-filters", "--stdin"], { input: readlinkSync(absolute) });
      entries[path] = `120000 ${id}`;
    } else {
      const id = gitText(repo.home, repo.home, ["hash-object", "--no-filters", "--", absolute]);
      entries[path] = `${(stat.mode & 0o111) === 0 ? "100644" : "100755"} ${id}`;
    }
  }
  return entries;
}

/** `<mode> <blob id>` of each blob below `.ai` in `revision`, as git stores it. */
function baseEntries(repo: FixtureRepo, revision: string): Record<string, string> {
  const listing = repo.gitBytes(["ls-tree", "-r", "-z", "--full-tree", revision, "--", ".ai"]).toString("utf8");
  const entries: Record<string, string> = {};
  for (const record of listing.split("\0").filter((line) => line !== "")) {
    const [meta = "", path = ""] = record.split("\t");
    const [mode = "", , sha = ""] = meta.split(" ");
    entries[path] = `${mode} ${sha}`;
  }
  return entries;
}

/**
 * Asserts docs/architecture.md, layer 1 (config comes from upstream, never the PR head): the work
 * tree's `.ai` is a real directory whose entries are exactly `revision`'s `.ai/` (same paths, same
 * blob ids, same exec bits), or absent when `revision` has none.
 */
export function expectAiMatchesBase(repo: FixtureRepo, revision: string, worktree: string): void {
  const expected = baseEntries(repo, revision);
  if (Object.keys(expected).length === 0) {
    expect(() => lstatSync(join(worktree, ".ai"))).toThrow(/ENOENT/);
    return;
  }
  const stat = lstatSync(join(worktree, ".ai"));
  expect(stat.isSymbolicLink()).toBe(false);
  expect(stat.isDirectory()).toBe(true);
  expect(worktreeEntries(repo, worktree)).toEqual(expected);
}
