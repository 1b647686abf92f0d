import { describe, expect, it } from "vitest";
import type { OutputFormat } from "@reviewbot/policy/helper-spec";
import { DOCUMENT_FORMATS, outputCap } from "./helper-findings.js";

const MiB = 1024 * 1024;

describe("outputCap", () => {
  it.each<[OutputFormat, number, number, number]>([
    ["sarif", MiB, 8 * MiB, 8 * MiB],
    ["eslint-json", MiB, 8 * MiB, 8 * MiB],
    ["checkstyle", MiB, 8 * MiB, 8 * MiB],
    // An operator who raised the general cap above the documents' keeps it for documents too.
    ["sarif", 16 * MiB, 8 * MiB, 16 * MiB],
    ["errorformat", MiB, 8 * MiB, MiB],
    ["rdjsonl", MiB, 8 * MiB, MiB],
    ["text", MiB, 8 * MiB, MiB],
  ])("%s with outputBytes %d and structuredOutputBytes %d: %d", (format, outputBytes, structuredOutputBytes, expected) => {
    expect(outputCap(format, { outputBytes }, { structuredOutputBytes })).toBe(expected);
  });

  it("treats every JSON or XML document format as a document, and no line format", () => {
    expect([...DOCUMENT_FORMATS].sort()).toEqual(["checkstyle", "eslint-json", "rdjson", "ruff-json", "sarif"]);
  });
});
