import { quote } from "@reviewbot/policy/config-error";

// C0/C1 controls (NUL ends a C string; a newline forges report lines), line separators and bidi
// controls (Trojan Source, CVE-2021-42574), and lone surrogates (with the `u` flag the class
// matches no valid pair): no file name worth annotating holds one.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

/**
 * The longest path mapped, in UTF-16 units: Linux's PATH_MAX. A longer one names no file a
 * checkout can hold, and refusing it first bounds the work and memory of every finding.
 */
export const MAX_PATH_LENGTH = 4096;

/** Where the worktree is mounted in the sandbox, and the helper's working directory. */
export interface PathMapping {
  /** The worktree's mount point inside the sandbox, absolute (`/work`). */
  readonly mountPoint: string;
  /** The helper's working directory: repository-relative (`.`, `src/app`) or under `mountPoint`. */
  readonly cwd: string;
}

/** A repository-relative POSIX path, or why the tool's path could not be made one. */
export type MappedPath = { readonly path: string; readonly problem: null } | { readonly path: null; readonly problem: string };

/**
 * Turns a path a helper printed into a normalised repository-relative POSIX path: a `file://`
 * URI loses its scheme (and its percent-escapes), an absolute path must lie under `mountPoint` (which is stripped), and a
 * relative path is resolved against the helper's `cwd`. `.` and `..` segments are resolved
 * lexically and the result must stay inside the repository. Paths with control characters
 * (NUL included), lone surrogates or backslashes, and paths longer than {@link MAX_PATH_LENGTH},
 * are refused rather than guessed at. Returns `path: null` and the reason when the path cannot be
 * mapped; callers drop such findings and count them. The result of the last call is reused when
 * the same path is mapped again the same way, so consecutive findings on one file share one
 * result (treat it as read-only).
 */
export function mapFindingPath(path: string, mapping: PathMapping): MappedPath {
  // Findings come grouped by file (ESLint's filePath, a SARIF base URI): the same path string,
  // mapped once and shared, instead of a copy per finding (1 MiB of output took 1.6 GB of heap).
  const last = lastMapped;
  if (last !== null && last.path === path && last.mountPoint === mapping.mountPoint && last.cwd === mapping.cwd) return last.result;
  const result = mapPath(path, mapping);
  lastMapped = { path, mountPoint: mapping.mountPoint, cwd: mapping.cwd, result };
  return result;
}

let lastMapped: { readonly path: string; readonly mountPoint: string; readonly cwd: string; readonly result: MappedPath } | null = null;

function mapPath(path: string, mapping: PathMapping): MappedPath {
  const refused = (reason: string): MappedPath => ({ path: null, problem: `path ${quote(path)} ${reason}` });
  if (path === "") return refused("is empty");
  if (path.length > MAX_PATH_LENGTH) return refused(`is longer than ${MAX_PATH_LENGTH} characters`);
  let value = path;
  if (value.startsWith("file://")) {
    // Only a local file URI (file:///abs); a host part (file://server/…) names another machine.
    if (!value.startsWith("file:///")) return refused("is a file URI with a host");
    try {
      value = decodeURIComponent(value.slice("file://".length));
    } catch {
      return refused("is a file URI with a malformed percent-escape");
    }
  }
  if (UNSAFE.test(value)) return refused(unsafeReason(value));
  // A tool with Windows habits may print `src\a.ts`; on Linux that is one odd name, so refuse it.
  if (value.includes("\\")) return refused("contains a backslash");
  const mount = trimSlashes(mapping.mountPoint);
  const base = baseSegments(mapping.cwd, mount);
  if (base === null) return refused(`cannot be resolved: the helper's cwd ${quote(mapping.cwd)} is outside the repository`);
  let segments: string[];
  if (value.startsWith("/")) {
    const inside = mount === "" || value === `/${mount}` || value.startsWith(`/${mount}/`);
    if (!inside) return refused(`is absolute and outside the mount point /${mount}`);
    segments = value.slice(mount.length + 1).split("/");
  } else {
    segments = [...base, ...value.split("/")];
  }
  const normalised = normalise(segments);
  if (normalised === null) return refused("leaves the repository");
  if (normalised === "") return refused("names the repository root, not a file");
  return { path: normalised, problem: null };
}

function unsafeReason(value: string): string {
  if (value.includes("\0")) return "contains a NUL byte";
  // eslint-disable-next-line no-control-regex -- as UNSAFE, without the surrogates
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(value)
    ? "contains a control or bidi character"
    : "is not valid Unicode (a lone surrogate)";
}

function trimSlashes(value: string): string {
  return value.replace(/^\/+|\/+$/g, "");
}

function baseSegments(cwd: string, mount: string): string[] | null {
  const relative = cwd === `/${mount}` || cwd.startsWith(`/${mount}/`) ? cwd.slice(mount.length + 1).replace(/^\/+/, "") : cwd;
  if (relative.startsWith("/") || relative.includes("\\") || UNSAFE.test(relative)) return null;
  const normalised = normalise(relative.split("/"));
  return normalised === null ? null : normalised.split("/").filter((segment) => segment !== "");
}

// Lexical resolution of `.`, `..` and empty segments; null when `..` climbs above the root.
function normalise(segments: readonly string[]): string | null {
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") kept.push(segment);
    else if (kept.pop() === undefined) return null;
  }
  return kept.join("/");
}
