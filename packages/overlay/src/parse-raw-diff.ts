export type ChangeStatus = "added" | "modified" | "deleted" | "renamed" | "copied" | "type-changed";

export interface RawChange {
  readonly status: ChangeStatus;
  /** The path on the head side; for a deletion, the path that was deleted. */
  readonly path: string;
  readonly previousPath: string | null;
  readonly newMode: string;
}

const STATUS: Readonly<Record<string, ChangeStatus>> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "type-changed",
};

/**
 * Parses `git diff --raw -z` records: `:<old mode> <new mode> <old sha> <new sha> <status>` then
 * one path, or two for renames and copies. Paths are NUL-separated, so spaces, newlines, leading
 * dashes and control characters in names need no unquoting. Each record is read once, by index.
 */
export function parseRawDiff(records: readonly string[]): RawChange[] {
  const changes: RawChange[] = [];
  for (let i = 0; i < records.length; i += 1) {
    const meta = records[i] ?? "";
    if (!meta.startsWith(":")) continue;
    // Only the five fields git writes, however long a hostile record: split stops at the limit.
    const [, newMode = "", , , statusField = ""] = meta.slice(1).split(" ", 5);
    const status = STATUS[statusField.charAt(0)] ?? "modified";
    if (status === "renamed" || status === "copied") {
      changes.push({ status, previousPath: records[i + 1] ?? "", path: records[i + 2] ?? "", newMode });
      i += 2;
    } else {
      changes.push({ status, previousPath: null, path: records[i + 1] ?? "", newMode });
      i += 1;
    }
  }
  return changes;
}

/**
 * Returns the head-side paths that `git diff --numstat -z` reports as binary ("-\t-\t"). A rename
 * is printed as "a\tb\t" followed by the old and new paths as separate records.
 */
export function parseBinaryPaths(records: readonly string[]): Set<string> {
  const binary = new Set<string>();
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i] ?? "";
    const firstTab = record.indexOf("\t");
    const added = firstTab === -1 ? record : record.slice(0, firstTab);
    // The path is everything after the second tab: a file name may itself contain tabs.
    const path = record.slice(record.indexOf("\t", firstTab + 1) + 1);
    let headPath = path;
    if (path === "") {
      headPath = records[i + 2] ?? "";
      i += 2;
    }
    if (added === "-") binary.add(headPath);
  }
  return binary;
}
