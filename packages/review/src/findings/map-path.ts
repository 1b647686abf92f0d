import { quote } from "@reviewbot/policy/config-error";

// C0/C1 controls (NUL ends a C string; a newline forges report lines), line separators and bidi
// controls (Trojan Source, CVE-2021-42574): no file name worth annotating holds one.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

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
 * (NUL included) or backslashes are refused rather than guessed at. Returns `path: null` and
 * the reason when the path cannot be mapped; callers drop such findings and count them.
 */
export function mapFindingPath(path: string, mapping: PathMapping): MappedPath {
  const refused = (reason: string): MappedPath => ({ path: null, problem: `path ${quote(path)} ${reason}` });
  if (path === "") return refused("is empty");
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
  if (UNSAFE.test(value)) return refused(value.includes("\0") ? "contains a NUL byte" : "contains a control or bidi character");
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
