import type { IncomingHttpHeaders } from "node:http";
import { constantTimeEqual } from "./constant-time-equal.js";

export interface BasicCredentials {
  readonly user: string;
  readonly password: string;
}

/**
 * True when `Authorization: Basic …` carries exactly these credentials. User and password are
 * both compared in constant time, and both always, so the answer's timing tells nothing about
 * which one was wrong.
 */
export function hasBasicCredentials(headers: IncomingHttpHeaders, expected: BasicCredentials): boolean {
  const match = /^Basic ([A-Za-z0-9+/=]{1,4096})$/i.exec(headers.authorization ?? "");
  if (match?.[1] === undefined) return false;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return false;
  const userOk = constantTimeEqual(decoded.slice(0, colon), expected.user);
  const passwordOk = constantTimeEqual(decoded.slice(colon + 1), expected.password);
  return userOk && passwordOk;
}
