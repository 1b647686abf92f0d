import { isIP } from "node:net";
import { AppError } from "@reviewbot/core/errors";

export const MAX_URL_LENGTH = 2048;

/** A URL `fetch_url` may request: `host` is the allowlisted name, lower case, no trailing dot. */
export interface AllowlistedUrl {
  readonly url: URL;
  readonly host: string;
}

/** Host names compare case-insensitively and without the root label's trailing dot. */
const normaliseHost = (host: string): string => host.toLowerCase().replace(/\.$/, "");

function refuse(reason: string): never {
  throw new AppError("POLICY_DENIED", `fetch_url: ${reason}`);
}

/**
 * Checks a URL the model asked for against the operator's allowlist: `https:` on the default port,
 * no credentials, a host name (never an IP address, in any of the forms WHATWG normalises to one:
 * `2130706433`, `0x7f.1`) that equals an allowlisted name exactly — no subdomains, no suffixes, no
 * wildcards. The URL is parsed once, with WHATWG `URL`, and everything after uses the parsed host,
 * so `https://allowed@evil/` is judged as the host `evil` it would reach.
 *
 * @param hosts the operator's `REVIEWBOT_LLM_FETCH_HOSTS`: ASCII (punycode) host names.
 * @throws AppError `POLICY_DENIED`, its message addressed to the model.
 */
export function parseAllowlistedUrl(text: string, hosts: readonly string[]): AllowlistedUrl {
  if (text.length > MAX_URL_LENGTH) refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    refuse("not an absolute URL");
  }
  if (url.protocol !== "https:") refuse(`only https: URLs can be fetched, not ${url.protocol}`);
  if (url.username !== "" || url.password !== "") refuse("a URL with a user name or password cannot be fetched");
  // WHATWG drops the scheme's default port, so "" is exactly "443, spelled or not".
  if (url.port !== "") refuse(`only the default port 443 can be fetched, not ${url.port}`);
  const host = normaliseHost(url.hostname);
  if (host.startsWith("[") || isIP(host) !== 0) refuse(`\`${host}\` is an IP address; give a host name from the operator's allowlist`);
  if (!hosts.some((allowed) => normaliseHost(allowed) === host)) refuse(`host \`${host}\` is not on the operator's allowlist`);
  url.hash = "";
  return { url, host };
}
