import { parseSarif } from "@reviewbot/review/findings/parse-sarif";
import type { Finding } from "@reviewbot/review/findings/finding";
import type { Report } from "@reviewbot/review/pipeline/report";
import { describe, expect, it } from "vitest";
import { pathToSarifUri, renderSarif } from "./render-sarif.js";

const finding = (path: string): Finding => ({
  path, line: 3, endLine: 4, column: 2, severity: "warning", message: "m", rule: "R1", helper: "lint",
});
// Only the fields renderSarif reads: the helpers and the findings.
const report = (findings: readonly Finding[]) => ({ helpers: [{ name: "lint" }], findings }) as unknown as Report;

describe("pathToSarifUri", () => {
  it.each([
    ["src/app.py", "src/app.py"],
    ["docs/my notes.md", "docs/my%20notes.md"],
    ["100%/done.txt", "100%25/done.txt"],
    ["a#b?c.ts", "a%23b%3Fc.ts"],
    ["c:drive/x.ts", "c%3Adrive/x.ts"],
    ["café/ünï.py", "caf%C3%A9/%C3%BCn%C3%AF.py"],
    ["lone\ud800.py", "lone%EF%BF%BD.py"],
  ])("encodes %j as %j", (path, uri) => {
    expect(pathToSarifUri(path)).toBe(uri);
  });

  // RFC 3986 relative-ref: path segments of unreserved characters, percent-escapes and sub-delims.
  it.each(["docs/my notes.md", "100%/done.txt", "a#b?c.ts", "c:drive/x.ts", "[x]{y}|z^`.ts"])("writes %j as a valid URI reference", (path) => {
    expect(pathToSarifUri(path)).toMatch(/^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-F]{2})*(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-F]{2})*)*$/);
  });
});

describe("renderSarif", () => {
  it("writes a log our own parser reads back to the same findings", () => {
    const findings = ["src/app.py", "docs/my notes.md", "100%/done.txt", "a#b?c.ts", "c:drive/x.ts", "café/ünï.py"].map(finding);
    const log = JSON.stringify(renderSarif(report(findings)), null, 2);
    expect(parseSarif(log, { helper: "lint" })).toEqual({ findings, problems: [] });
  });
});
