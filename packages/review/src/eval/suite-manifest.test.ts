import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { CaseManifest } from "./suite-manifest.js";

// A suite is data copied from elsewhere (a public benchmark's cases): its manifests are read as
// untrusted bytes, JSON then the schema, in time linear in their size.
function manifestText(known: number): string {
  const finding = { path: "src/a/b.ts", startLine: 3, endLine: 9, side: "RIGHT", description: "an off-by-one in the loop's bound" };
  return JSON.stringify({ id: "case-1", kind: "bug", title: "t", source: { kind: "tree" }, known: Array.from({ length: known }, () => finding) });
}

describe("CaseManifest", () => {
  it("refuses a clean case with known findings and a bug case without", () => {
    const base = { id: "c", title: "t", source: { kind: "tree" } };
    expect(CaseManifest.safeParse({ ...base, kind: "clean", known: [{ path: "a", startLine: 1, endLine: 1, side: "RIGHT", description: "d" }] }).success).toBe(
      false,
    );
    expect(CaseManifest.safeParse({ ...base, kind: "bug", known: [] }).success).toBe(false);
    expect(CaseManifest.safeParse({ ...base, kind: "clean", known: [] }).success).toBe(true);
  });

  it("refuses paths that leave the repository", () => {
    for (const path of ["../x", "/etc/passwd", "a//b", "a/./b"]) {
      expect(
        CaseManifest.safeParse({
          id: "c",
          kind: "bug",
          title: "t",
          source: { kind: "tree" },
          known: [{ path, startLine: 1, endLine: 1, side: "RIGHT", description: "d" }],
        }).success,
      ).toBe(false);
    }
  });

  it("reads a manifest in time linear in its size (at most 1,000 findings: 4x of them, under 8x the time)", () => {
    const ratio = growthRatio((text: string) => CaseManifest.parse(JSON.parse(text)), manifestText, 50, { maxGrowth: 4 });
    expect(ratio).toBeLessThan(8);
  });
});
