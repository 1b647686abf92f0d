import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { describe, expect, it } from "vitest";
import { splitPatchSections } from "./pr-patches.js";

const section = (path: string, body: string) => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n${body}`;

describe("splitPatchSections", () => {
  it.each([
    ["no patch", "", []],
    ["one file", section("a", "+x\n"), [section("a", "+x\n")]],
    ["two files", section("a", "+x\n") + section("b", "-y\n"), [section("a", "+x\n"), section("b", "-y\n")]],
    // Content lines start with " ", "+", "-" or "\\": text reading "diff --git" inside a line is not a header.
    ["a content line that reads like a header", section("a", "+diff --git a/evil b/evil\n"), [section("a", "+diff --git a/evil b/evil\n")]],
    ["text before the first section", `noise\n${section("a", "+x\n")}`, [section("a", "+x\n")]],
  ])("%s", (_name, patch, expected) => {
    expect(splitPatchSections(patch)).toEqual(expected);
  });

  it.each([
    // Files of twenty lines: with one-line files the measure is of allocating a string per section
    // (5.5 alone, 8.4 with other suites running), not of the scan.
    ["many files", (n: number) => Array.from({ length: n }, (_, index) => section(`f${index}`, "+added line\n".repeat(20))).join("")],
    ["one giant line", (n: number) => section("a", `+${"x".repeat(n * 50)}\n`)],
  ])(
    "splits %s in linear time",
    (_name, make) => {
      expect(growthRatio(splitPatchSections, make, 500)).toBeLessThanOrEqual(6);
    },
    60_000,
  );
});
