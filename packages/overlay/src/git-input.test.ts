import { describe, expect, it } from "vitest";
import { assertRefName, normaliseRemote } from "./git-input.js";

describe("assertRefName", () => {
  it.each(["main", "refs/pull/12/head", "feature/x-1", "release-1.2", "a".repeat(40), "0123456789abcdef0123456789abcdef01234567"])("accepts %s", (ref) => {
    expect(assertRefName("head.ref", ref)).toBe(ref);
  });

  it.each([
    ["", "length"],
    ["--upload-pack=touch x", "only letters"],
    ["-main", "must not start with '-'"],
    ["a..b", "'..'"],
    ["a//b", "'..' or '//'"],
    ["/main", "start or end with '/'"],
    ["main/", "start or end with '/'"],
    ["main@{1}", "only letters"],
    ["x.lock", ".lock"],
    ["refs/.hidden", "start with '.'"],
    ["has space", "only letters"],
    ["semi;colon", "only letters"],
    ["end.", "end with '.'"],
    ["a".repeat(256), "length"],
  ])("rejects %j naming the reason", (ref, reason) => {
    expect(() => assertRefName("head.ref", ref)).toThrow(reason);
    expect(() => assertRefName("head.ref", ref)).toThrow(/^head\.ref: /);
  });
});

describe("normaliseRemote", () => {
  it.each([
    ["https://github.com/o/r.git", ["https"], "https://github.com/o/r.git"],
    ["/srv/repos/sample", ["file"], "file:///srv/repos/sample"],
    ["file:///srv/x", ["file"], "file:///srv/x"],
  ])("accepts %s", (remote, protocols, expected) => {
    expect(normaliseRemote(remote, protocols)).toBe(expected);
  });

  it.each([
    ["ext::sh -c touch% /tmp/pwned", ["https"], 'protocol "ext" is not allowed'],
    ["https://x-access-token:ghs_secret@github.com/o/r", ["https"], "credentials must not be embedded"],
    ["http://example.com/r", ["https"], 'protocol "http" is not allowed'],
    ["/local/path", ["https"], 'protocol "file" is not allowed'],
    ["relative/path", ["https", "file"], "neither a URL nor an absolute path"],
    ["https://h/x\nfoo", ["https"], "NUL or newline"],
  ])("rejects %s", (remote, protocols, reason) => {
    expect(() => normaliseRemote(remote, protocols)).toThrow(reason);
  });
});
