import { quote } from "@reviewbot/policy/config-error";
import { member } from "./json-input.js";
import { MAX_PATH_LENGTH } from "./map-path.js";

/** A SARIF artifact location turned into a file path, or why it could not be. */
export type SarifPath = { readonly ok: true; readonly path: string | undefined } | { readonly ok: false; readonly problem: string };

/** Turns the artifact locations of one run into paths. */
export type SarifPathResolver = (artifactLocation: unknown) => SarifPath;

// A base may itself name a base (§3.14.14); a chain longer than this is a loop or an attack.
const MAX_BASE_DEPTH = 8;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NO_FILE: SarifPath = { ok: true, path: undefined };

/**
 * The file paths of a run's SARIF `artifactLocation`s (§3.4): a `uri` (or that of
 * `run.artifacts[index]`), resolved against the run's `originalUriBaseIds` when its `uriBaseId`
 * is defined there, with a `file:` scheme removed and percent-escapes decoded. A relative result
 * stays relative (to the helper's working directory); `mapFindingPath` decides whether it is
 * inside the repository. `path: undefined` when the location names no file.
 *
 * Each base is resolved and decoded once per run, and each `(uriBaseId, uri)` pair once: the
 * results on one file share one path string instead of a copy of a long base each.
 */
export function sarifPathResolver(run: unknown): SarifPathResolver {
  const bases = new Map<string, SarifPath>();
  const paths = new Map<string, Map<string, SarifPath>>();
  const baseOf = (baseId: string): SarifPath => {
    let base = bases.get(baseId);
    if (base === undefined) {
      base = resolveBase(run, baseId);
      bases.set(baseId, base);
    }
    return base;
  };
  return (artifactLocation) => {
    const location = artifactOf(run, artifactLocation);
    const uri = member(location, "uri");
    if (uri === undefined) return NO_FILE;
    if (typeof uri !== "string") return { ok: false, problem: "artifactLocation.uri is not a string" };
    const baseId = member(location, "uriBaseId");
    const key = typeof baseId === "string" && !SCHEME.test(uri) ? baseId : "";
    let byUri = paths.get(key);
    if (byUri === undefined) {
      byUri = new Map();
      paths.set(key, byUri);
    }
    let path = byUri.get(uri);
    if (path === undefined) {
      path = join(key === "" ? NO_FILE : baseOf(key), uri);
      byUri.set(uri, path);
    }
    return path;
  };
}

function artifactOf(run: unknown, artifactLocation: unknown): unknown {
  const index = member(artifactLocation, "index");
  if (member(artifactLocation, "uri") !== undefined || typeof index !== "number") return artifactLocation;
  const artifacts = member(run, "artifacts");
  return member(Array.isArray(artifacts) ? (artifacts[index] as unknown) : undefined, "location");
}

function join(base: SarifPath, uri: string): SarifPath {
  if (!base.ok) return base;
  if (uri.length > MAX_PATH_LENGTH) return { ok: false, problem: `URI is longer than ${MAX_PATH_LENGTH} characters` };
  if (base.path === undefined) return decode(uri);
  // Decoded apart and joined at a `/`, so no escape can straddle the two.
  const relative = decodeEscapes(uri);
  if (relative === undefined) return { ok: false, problem: `URI ${quote(uri)} has a malformed percent-escape` };
  const separator = base.path === "" || base.path.endsWith("/") ? "" : "/";
  return { ok: true, path: `${base.path}${separator}${relative}` };
}

// The decoded base a `uriBaseId` names, following the chain of bases (`path: undefined` when the
// base is not defined: `%SRCROOT%` left for the consumer to choose is the helper's cwd).
function resolveBase(run: unknown, baseId: string): SarifPath {
  const parts: string[] = [];
  let id: unknown = baseId;
  for (let depth = 0; typeof id === "string"; depth += 1) {
    if (depth >= MAX_BASE_DEPTH) return { ok: false, problem: `uriBaseId chain is deeper than ${MAX_BASE_DEPTH}` };
    const entry = member(run, "originalUriBaseIds", id);
    const uri = member(entry, "uri");
    if (typeof uri !== "string") break;
    parts.unshift(uri === "" || uri.endsWith("/") ? uri : `${uri}/`);
    if (SCHEME.test(uri)) break;
    id = member(entry, "uriBaseId");
  }
  if (parts.length === 0) return NO_FILE;
  const joined = parts.join("");
  if (joined.length > MAX_PATH_LENGTH) return { ok: false, problem: `the base URI of ${quote(baseId)} is longer than ${MAX_PATH_LENGTH} characters` };
  return decode(joined);
}

function decode(uri: string): SarifPath {
  let rest = uri;
  if (/^file:/i.test(rest)) {
    rest = rest.slice("file:".length);
    // file:///p and file://localhost/p name a local file; file://host/p names someone else's.
    if (rest.startsWith("//")) {
      const slash = rest.indexOf("/", 2);
      const host = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
      if (host !== "" && host.toLowerCase() !== "localhost") return { ok: false, problem: `URI ${quote(uri)} names another host` };
      rest = slash === -1 ? "" : rest.slice(slash);
    }
  } else if (SCHEME.test(rest)) {
    return { ok: false, problem: `URI ${quote(uri)} is not a file URI` };
  }
  const path = decodeEscapes(rest);
  return path === undefined ? { ok: false, problem: `URI ${quote(uri)} has a malformed percent-escape` } : { ok: true, path };
}

function decodeEscapes(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
