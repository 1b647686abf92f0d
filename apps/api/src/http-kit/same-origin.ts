import type { IncomingHttpHeaders } from "node:http";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF guard for the dashboard: a state-changing request (anything but GET/HEAD/OPTIONS) must
 * come from the dashboard's own origin: `Sec-Fetch-Site: same-origin`, or an `Origin` whose host
 * is the request's `Host`. Basic auth alone is not enough: browsers replay it on cross-site
 * requests. A missing, `null` or foreign origin is refused.
 */
export function isSameOriginRequest(method: string, headers: IncomingHttpHeaders): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  const fetchSite = headers["sec-fetch-site"];
  if (fetchSite !== undefined) return fetchSite === "same-origin";
  const origin = headers.origin;
  const host = headers.host;
  if (origin === undefined || host === undefined || origin === "null") return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
