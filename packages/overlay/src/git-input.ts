import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { COMMIT_SHA } from "@reviewbot/contracts/commit-sha";
import { AppError } from "@reviewbot/core/errors";

const REF_CHARS = /^[A-Za-z0-9._/-]+$/;

/** True for a full SHA-1 or SHA-256 object name in lowercase hex. */
export function isFullSha(value: string): boolean {
  return COMMIT_SHA.test(value);
}

/**
 * Accepts a full SHA or a ref name from a strict subset of `git check-ref-format`: no option-like
 * leading dash, no `..`, `//`, `@{`, trailing `.lock`, control or shell characters. Anything derived
 * from a webhook or a command line passes here before it reaches git's argv.
 */
export function assertRefName(field: string, value: string): string {
  const reason = refProblem(value);
  if (reason !== null) {
    throw new AppError("POLICY_DENIED", `${field}: ${JSON.stringify(value)} is not an acceptable ref (${reason})`);
  }
  return value;
}

function refProblem(value: string): string | null {
  if (isFullSha(value)) return null;
  if (value.length === 0 || value.length > 255) return "length must be 1-255";
  if (!REF_CHARS.test(value)) return "only letters, digits, '.', '_', '/' and '-' are allowed";
  if (value.startsWith("-")) return "must not start with '-'";
  if (value.startsWith("/") || value.endsWith("/")) return "must not start or end with '/'";
  if (value.includes("..") || value.includes("//")) return "must not contain '..' or '//'";
  if (value.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock"))) {
    return "no component may start with '.' or end with '.lock'";
  }
  if (value.endsWith(".")) return "must not end with '.'";
  return null;
}

/**
 * Normalises a remote to a URL string and checks it against the protocol allowlist. Absolute local
 * paths become file:// URLs. Credentials embedded in the URL are refused: they would be stored in
 * argv and logs; tokens travel through GIT_ASKPASS instead.
 */
export function normaliseRemote(remote: string, allowedProtocols: readonly string[]): string {
  if (remote.includes("\0") || /[\r\n]/.test(remote)) {
    throw new AppError("POLICY_DENIED", "remote: contains a NUL or newline");
  }
  const url = isAbsolute(remote) ? pathToFileURL(remote) : parseUrl(remote);
  const protocol = url.protocol.replace(/:$/, "");
  if (!allowedProtocols.includes(protocol)) {
    throw new AppError("POLICY_DENIED", `remote: protocol "${protocol}" is not allowed (allowed: ${allowedProtocols.join(", ")})`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new AppError("POLICY_DENIED", "remote: credentials must not be embedded in the URL");
  }
  return url.href;
}

function parseUrl(remote: string): URL {
  try {
    return new URL(remote);
  } catch {
    throw new AppError("POLICY_DENIED", `remote: ${JSON.stringify(remote)} is neither a URL nor an absolute path`);
  }
}
