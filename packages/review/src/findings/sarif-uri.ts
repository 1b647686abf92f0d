import { quote } from "@reviewbot/policy/config-error";
import { member } from "./json-input.js";

/** A SARIF artifact location turned into a file path, or why it could not be. */
export type SarifPath = { readonly ok: true; readonly path: string | undefined } | { readonly ok: false; readonly problem: string };

// A base may itself name a base (§3.14.14); a chain longer than this is a loop or an attack.
const MAX_BASE_DEPTH = 8;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * The file path of a SARIF `artifactLocation` (§3.4): its `uri` (or that of `run.artifacts[index]`),
 * resolved against the run's `originalUriBaseIds` when its `uriBaseId` is defined there, with a
 * `file:` scheme removed and percent-escapes decoded. A relative result stays relative (to the
 * helper's working directory); `mapFindingPath` decides whether it is inside the repository.
 * Returns `path: undefined` when the location names no file.
 */
export function sarifUriToPath(run: unknown, artifactLocation: unknown): SarifPath {
  let location = artifactLocation;
  const index = member(location, "index");
  if (member(location, "uri") === undefined && typeof index === "number") {
    const artifacts = member(run, "artifacts");
    location = member(Array.isArray(artifacts) ? (artifacts[index] as unknown) : undefined, "location");
  }
  const uri = member(location, "uri");
  if (uri === undefined) return { ok: true, path: undefined };
  if (typeof uri !== "string") return { ok: false, problem: "artifactLocation.uri is not a string" };
  const resolved = resolveBase(run, uri, member(location, "uriBaseId"), 0);
  return resolved.ok && resolved.path !== undefined ? decode(resolved.path) : resolved;
}

function resolveBase(run: unknown, uri: string, baseId: unknown, depth: number): SarifPath {
  if (SCHEME.test(uri) || typeof baseId !== "string") return { ok: true, path: uri };
  if (depth >= MAX_BASE_DEPTH) return { ok: false, problem: `uriBaseId chain is deeper than ${MAX_BASE_DEPTH}` };
  const entry = member(run, "originalUriBaseIds", baseId);
  const base = member(entry, "uri");
  const parent = member(entry, "uriBaseId");
  // An undefined base (`%SRCROOT%` left for the consumer to choose) is the helper's cwd.
  if (typeof base !== "string") return { ok: true, path: uri };
  const joined = base === "" || base.endsWith("/") ? `${base}${uri}` : `${base}/${uri}`;
  return resolveBase(run, joined, parent, depth + 1);
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
  try {
    return { ok: true, path: decodeURIComponent(rest) };
  } catch {
    return { ok: false, problem: `URI ${quote(uri)} has a malformed percent-escape` };
  }
}
