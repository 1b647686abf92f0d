import { describe, expect, it } from "vitest";
import { diffPieceDigests, findingDigest, submittedFindingDigests } from "./model-witness.js";

const NONCE = "0123456789abcdef0123456789abcdef";
const HEADER = "diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n";
const HUNK_1 = "@@ -1,2 +1,2 @@\n-a\n+b\n c\n";
const HUNK_2 = "@@ -10,2 +10,2 @@\n-x\n+y\n z\n";
const envelope = (label: string, text: string, kind = "diff", nonce = NONCE) =>
  `<untrusted-data kind="${kind}" label="${label}" id="${nonce}">\n${text}\n</untrusted-data id="${nonce}">`;

describe("diffPieceDigests", () => {
  it("digests a file shown whole the same as the file shown in two parts split at a hunk", () => {
    const whole = diffPieceDigests(`Review this:\n\n${envelope("src/a.ts", HEADER + HUNK_1 + HUNK_2)}\n\nThen submit.`);
    const split = diffPieceDigests([envelope("src/a.ts", HEADER + HUNK_1), envelope("src/a.ts", HEADER + HUNK_2)].join("\n\n"));
    expect(whole).toHaveLength(2);
    expect(split).toEqual(whole);
  });

  it("tells pieces apart by their file and their text (negative control)", () => {
    const [piece] = diffPieceDigests(envelope("src/a.ts", HEADER + HUNK_1));
    expect(diffPieceDigests(envelope("src/b.ts", HEADER + HUNK_1))).not.toContain(piece);
    expect(diffPieceDigests(envelope("src/a.ts", HEADER + HUNK_1.replace("+b", "+B")))).not.toContain(piece);
  });

  it("reads only diff envelopes, closed by their own nonce", () => {
    expect(diffPieceDigests(envelope("src/a.ts", HEADER + HUNK_1, "file"))).toEqual([]);
    expect(diffPieceDigests(`<untrusted-data kind="diff" label="src/a.ts" id="${NONCE}">\n${HEADER}${HUNK_1}`)).toEqual([]);
    const other = "f".repeat(32);
    expect(diffPieceDigests(`<untrusted-data kind="diff" label="src/a.ts" id="${NONCE}">\n${HUNK_1}\n</untrusted-data id="${other}">`)).toEqual([]);
    expect(diffPieceDigests(envelope("src/a.ts", HEADER))).toEqual([]);
  });
});

describe("submittedFindingDigests", () => {
  const finding = { path: "src/a.ts", side: "RIGHT", line: 2, severity: "error", category: "bug", title: "T", body: "B", anchorText: "b" };

  it("digests what the worker places: path and texts, not the line", () => {
    const [digest] = submittedFindingDigests(JSON.stringify({ summary: "s", findings: [finding] }));
    expect(digest).toBe(findingDigest({ path: "src/a.ts", title: "T", body: "B", suggestion: null }));
    expect(submittedFindingDigests(JSON.stringify({ summary: "s", findings: [{ ...finding, line: 40 }] }))).toEqual([digest]);
    expect(findingDigest({ path: "src/a.ts", title: "T", body: "B", suggestion: "x" })).not.toBe(digest);
  });

  it("skips what is not a finding, and arguments that are not JSON", () => {
    expect(submittedFindingDigests("{not json")).toEqual([]);
    expect(submittedFindingDigests(JSON.stringify({ findings: [null, 3, { ...finding, title: 1 }, { ...finding, suggestion: 2 }] }))).toEqual([]);
  });
});
