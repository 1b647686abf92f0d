import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

export interface EntrySnapshot {
  readonly kind: "dir" | "file" | "symlink" | "other";
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** sha256 of a file's bytes, or a symlink's target. */
  readonly content: string;
}

/**
 * Everything an attacker could change about a directory outside the work tree: the entries, their
 * bytes, modes and mtimes, and the directory itself. Two equal snapshots mean nothing was read
 * into, written, created or deleted (reads aside, which the content of the work tree reveals).
 */
export function snapshotDir(dir: string): Record<string, EntrySnapshot> {
  const snapshot: Record<string, EntrySnapshot> = {};
  const visit = (relative: string): void => {
    const absolute = relative === "" ? dir : join(dir, relative);
    const stat = lstatSync(absolute);
    const base = { mode: stat.mode, size: stat.size, mtimeMs: stat.mtimeMs };
    if (stat.isSymbolicLink()) {
      snapshot[relative] = { kind: "symlink", ...base, content: readlinkSync(absolute) };
    } else if (stat.isFile()) {
      snapshot[relative] = { kind: "file", ...base, content: createHash("sha256").update(readFileSync(absolute)).digest("hex") };
    } else if (stat.isDirectory()) {
      snapshot[relative] = { kind: "dir", ...base, content: "" };
      for (const name of readdirSync(absolute).sort()) visit(relative === "" ? name : `${relative}/${name}`);
    } else {
      snapshot[relative] = { kind: "other", ...base, content: "" };
    }
  };
  visit("");
  return snapshot;
}

/** Bytes of disk allocated below `dir` (st_blocks), the figure `du` reports. */
export function diskUsage(dir: string): number {
  const stat = lstatSync(dir);
  let total = stat.blocks * 512;
  if (stat.isDirectory()) for (const name of readdirSync(dir)) total += diskUsage(join(dir, name));
  return total;
}
