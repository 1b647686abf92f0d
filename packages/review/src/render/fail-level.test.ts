import { aiReportOff } from "@reviewbot/contracts/ai-report";
import type { Severity } from "@reviewbot/contracts/severity";
import { describe, expect, it } from "vitest";
import type { Finding } from "../findings/finding.js";
import { failsAt, type FailLevel } from "./fail-level.js";

const finding = (severity: Severity): Finding => ({ path: "a.ts", line: 1, endLine: null, column: null, severity, message: "m", rule: null, helper: "lint" });

describe("failsAt", () => {
  it.each<[FailLevel, Severity | null, boolean]>([
    ["none", "error", false],
    ["error", "warning", false],
    ["error", "error", true],
    ["warning", "warning", true],
    ["warning", "notice", false],
    ["notice", "notice", true],
    ["notice", null, false],
  ])("at %s with a %s finding: %s", (level, severity, fails) => {
    const findings = severity === null ? [] : [finding(severity)];
    expect(failsAt({ findings, ai: aiReportOff() }, level)).toBe(fails);
  });
});
