import type { PlacedAiFinding } from "@reviewbot/contracts/ai-report";
import type { PublishedFinding } from "@reviewbot/contracts/published-report";
import { describe, expect, it } from "vitest";
import { aiFingerprint, fingerprintMarker, fingerprintOf, markedFingerprint } from "./finding-fingerprint.js";

const aiFinding = (patch: Partial<PlacedAiFinding> = {}): PlacedAiFinding => ({
  path: "src/a.ts",
  side: "RIGHT",
  startLine: null,
  line: 12,
  severity: "warning",
  category: "bug",
  title: "Off by one",
  body: "The loop stops one short.",
  suggestion: null,
  anchor: "0123456789abcdef",
  ...patch,
});

const helperFinding = (patch: Partial<PublishedFinding> = {}): PublishedFinding => ({
  path: "src/a.ts",
  line: 12,
  endLine: null,
  column: null,
  severity: "error",
  message: "unused variable x",
  rule: "no-unused-vars",
  helper: "eslint",
  anchor: "0123456789abcdef",
  ...patch,
});

describe("fingerprintOf an AI finding", () => {
  const original = fingerprintOf(aiFinding());

  it.each([
    ["its line moved", { line: 40 }],
    ["its range moved", { startLine: 38, line: 40 }],
    ["its body was reworded", { body: "Another wording." }],
    ["its severity changed", { severity: "error" }],
    ["its category changed", { category: "correctness" }],
    ["it gained a suggestion", { suggestion: "for (let i = 0; i <= n; i++) {" }],
    ["its title differs in case and spacing only", { title: "  off  BY\tone " }],
  ] as const)("is the same when %s", (_name, patch) => {
    expect(fingerprintOf(aiFinding(patch))).toBe(original);
  });

  it.each([
    ["another anchor (its line reads otherwise)", { anchor: "fedcba9876543210" }],
    ["another path", { path: "src/b.ts" }],
    ["another title", { title: "Off by two" }],
    ["the other side", { side: "LEFT" }],
  ] as const)("differs for %s", (_name, patch) => {
    expect(fingerprintOf(aiFinding(patch))).not.toBe(original);
  });

  it("is aiFingerprint's, 32 lowercase hex digits", () => {
    expect(original).toBe(aiFingerprint(aiFinding()));
    expect(original).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("fingerprintOf a helper finding", () => {
  const original = fingerprintOf(helperFinding());

  it.each([
    ["its line moved", { line: 40, endLine: 41, column: 3 }],
    ["its severity changed", { severity: "warning" }],
    ["its message changed under the same rule", { message: "unused variable y" }],
  ] as const)("is the same when %s", (_name, patch) => {
    expect(fingerprintOf(helperFinding(patch))).toBe(original);
  });

  it.each([
    ["another anchor", { anchor: "fedcba9876543210" }],
    ["another path", { path: "src/b.ts" }],
    ["another rule", { rule: "no-undef" }],
    ["another helper", { helper: "semgrep" }],
    ["no rule: the message stands for it", { rule: null }],
  ] as const)("differs for %s", (_name, patch) => {
    expect(fingerprintOf(helperFinding(patch))).not.toBe(original);
  });

  it("without a rule, tells messages apart", () => {
    expect(fingerprintOf(helperFinding({ rule: null, message: "a" }))).not.toBe(fingerprintOf(helperFinding({ rule: null, message: "b" })));
  });

  it("is null without an anchor (off the diff's hunks: never a review comment)", () => {
    expect(fingerprintOf(helperFinding({ anchor: null }))).toBeNull();
    expect(fingerprintOf(helperFinding({ anchor: null, line: null }))).toBeNull();
  });

  it("never equals an AI finding's that says the same on the same line", () => {
    const helper = helperFinding({ helper: "ai", rule: "off by one" });
    expect(fingerprintOf(helper)).not.toBe(fingerprintOf(aiFinding({ title: "off by one" })));
  });
});

describe("fingerprint markers", () => {
  const fingerprint = aiFingerprint(aiFinding());

  it("reads back the fingerprint a marker was made of, alone or at the end of a comment", () => {
    expect(markedFingerprint(fingerprintMarker(fingerprint))).toBe(fingerprint);
    expect(markedFingerprint(`**Off by one** (warning)\n\nThe loop.\n\n${fingerprintMarker(fingerprint)}`)).toBe(fingerprint);
  });

  it.each([
    ["no marker", "**Off by one** (warning)"],
    ["31 hex digits", `<!-- reviewbot:finding:${fingerprint.slice(1)} -->`],
    ["33 hex digits", `<!-- reviewbot:finding:${fingerprint}0 -->`],
    ["64 hex digits (a whole SHA-256)", `<!-- reviewbot:finding:${fingerprint}${fingerprint} -->`],
    ["uppercase hex", `<!-- reviewbot:finding:${fingerprint.toUpperCase()} -->`],
    ["another marker's name", `<!-- reviewbot:${fingerprint} -->`],
    ["no closing of the comment", `<!-- reviewbot:finding:${fingerprint}`],
    // Ours always ends the comment: one with text after it was quoted (a suggestion holds the PR's text).
    ["a marker with text after it", `${fingerprintMarker(fingerprint)}\n\`\`\``],
  ])("reads nothing from %s", (_name, body) => {
    expect(markedFingerprint(body)).toBeNull();
  });
});
