import { describe, expect, it } from "vitest";
import { MAX_URL_LENGTH, parseAllowlistedUrl } from "./allowlisted-url.js";

const HOSTS = ["docs.test", "API.Example.", "127.0.0.1", "[::1]"];

describe("parseAllowlistedUrl", () => {
  it.each([
    ["https://docs.test/", "docs.test", "https://docs.test/"],
    ["https://docs.test/guide?q=1#intro", "docs.test", "https://docs.test/guide?q=1"],
    ["https://DOCS.Test/", "docs.test", "https://docs.test/"],
    ["https://docs.test./", "docs.test", "https://docs.test./"],
    ["https://docs.test:443/", "docs.test", "https://docs.test/"],
    ["https://api.example/v1", "api.example", "https://api.example/v1"],
  ])("accepts %s", (text, host, href) => {
    const parsed = parseAllowlistedUrl(text, HOSTS);
    expect({ host: parsed.host, href: parsed.url.href }).toEqual({ host, href });
  });

  it.each([
    ["docs.test/guide", "not an absolute URL"],
    ["https://", "not an absolute URL"],
    ["http://docs.test/", "only https: URLs can be fetched, not http:"],
    ["file:///etc/passwd", "only https: URLs can be fetched, not file:"],
    ["ftp://docs.test/", "only https: URLs can be fetched, not ftp:"],
    ["https://docs.test:8443/", "only the default port 443 can be fetched, not 8443"],
    ["https://docs.test:80/", "only the default port 443 can be fetched, not 80"],
    ["https://user@docs.test/", "a URL with a user name or password cannot be fetched"],
    ["https://:secret@docs.test/", "a URL with a user name or password cannot be fetched"],
    ["https://docs.test@evil.test/", "a URL with a user name or password cannot be fetched"],
    ["https://evil.test/", "host `evil.test` is not on the operator's allowlist"],
    ["https://docs.test.evil.test/", "host `docs.test.evil.test` is not on the operator's allowlist"],
    ["https://sub.docs.test/", "host `sub.docs.test` is not on the operator's allowlist"],
    ["https://evildocs.test/", "host `evildocs.test` is not on the operator's allowlist"],
    ["https://docs.tes/", "host `docs.tes` is not on the operator's allowlist"],
    ["https://docs.test../", "host `docs.test.` is not on the operator's allowlist"],
    ["https://evil.test/?docs.test", "host `evil.test` is not on the operator's allowlist"],
    ["https://evil.test/#docs.test", "host `evil.test` is not on the operator's allowlist"],
    ["https://evil.test\\docs.test", "host `evil.test` is not on the operator's allowlist"],
    ["https://127.0.0.1/", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    ["https://2130706433/", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    ["https://0x7f.1/", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    ["https://0177.0.0.1/", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    ["https://[::1]/", "`[::1]` is an IP address; give a host name from the operator's allowlist"],
    ["https://[::ffff:127.0.0.1]/", "`[::ffff:7f00:1]` is an IP address; give a host name from the operator's allowlist"],
  ])("refuses %s", (text, reason) => {
    expect(() => parseAllowlistedUrl(text, HOSTS)).toThrow(expect.objectContaining({ code: "POLICY_DENIED", message: `fetch_url: ${reason}` }));
  });

  it("accepts a URL of 2048 characters and refuses one of 2049", () => {
    const longest = `https://docs.test/${"a".repeat(MAX_URL_LENGTH - "https://docs.test/".length)}`;
    expect(parseAllowlistedUrl(longest, HOSTS).url.href).toBe(longest);
    expect(() => parseAllowlistedUrl(`${longest}a`, HOSTS)).toThrow("fetch_url: the URL is longer than 2048 characters");
  });

  it("refuses every host when the allowlist is empty", () => {
    expect(() => parseAllowlistedUrl("https://docs.test/", [])).toThrow("fetch_url: host `docs.test` is not on the operator's allowlist");
  });
});
