import { existsSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Checkout } from "@reviewbot/overlay/clone-cache";
import { RepoReader, type RepoReaderLimits } from "@reviewbot/review/ai/repo/repo-reader";
import { checkoutFork } from "../support/clone-cache-harness.js";
import { BASE_SOURCE_FILES, createUpstream, type Upstream } from "../support/git-fixture.js";
import { treeWithPaths } from "../support/git-trees.js";

const MIB = 1024 * 1024;
const TEN_THOUSAND = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}\n`).join("");
const TWO_MIB = Array.from({ length: (2 * MIB) / 32 }, (_, i) => `row ${String(i + 1).padStart(8, "0")} ${"r".repeat(18)}\n`).join("");
const BINARY = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Buffer.alloc(100, 7)]);

let root = "";
let upstream: Upstream;
let checkout: Checkout;

/**
 * One PR for the whole file: a fork that edits, deletes and adds every kind of entry the tools
 * must handle (symlinks out of the repository, a gitlink, a 50 MB blob, glob and unicode names),
 * and a base that moved on after the fork, so that base, merge base and head all differ.
 */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "reviewbot-repo-reader-"));
  upstream = createUpstream(root);
  upstream.commitOn("fork", (tree) => {
    tree.write("src/app.ts", (BASE_SOURCE_FILES["src/app.ts"] ?? "").replace("line3 = 3", "line3 = 33"));
    tree.remove("src/util.ts");
    tree.write("big/ten-thousand.txt", TEN_THOUSAND);
    tree.write("big/two-mib.txt", TWO_MIB);
    tree.write("big/fifty-mb.bin", Buffer.alloc(50 * MIB));
    tree.write("bin/image.png", BINARY);
    tree.symlink("links/environ", "/proc/self/environ");
    tree.symlink("links/passwd", "../../etc/passwd");
    tree.symlink("links/etc", "/etc");
    tree.write("weird/a*", "a star needle\n");
    tree.write("weird/abc", "abc needle\n");
    tree.write("weird/[a]", "bracket needle\n");
    tree.write("weird/a", "plain a needle\n");
    tree.write("weird/sp ace é.md", "unicode needle\n");
    tree.write("grep/fixed.txt", "a.c\nabc\n-dash-needle\n");
    for (let i = 0; i < 600; i += 1) tree.write(`many/f${String(i).padStart(3, "0")}`, "x\n");
  });
  const withGitlink = treeWithPaths(upstream, "fork^{tree}", [{ mode: "160000", path: "vendor/lib", sha: upstream.rev("main") }]);
  upstream.commitTreeOn("fork", withGitlink, "vendor a submodule");
  upstream.commitOn("main", (tree) => {
    tree.write("base-only.txt", "only on the base branch\n");
  });
  checkout = await checkoutFork(root, upstream);
}, 120_000);

afterAll(async () => {
  await checkout.release();
  await rm(root, { recursive: true, force: true });
});

function reader(limits: Partial<RepoReaderLimits> = {}): RepoReader {
  const { headSha, baseSha, diff } = checkout;
  return new RepoReader({ ...checkout.git, headSha, baseSha, fromSha: diff.fromSha }, limits);
}

/** Awaits a call the model got wrong: a ToolInputError whose message is `message`'s. */
async function refusal(call: Promise<unknown>, message: string | RegExp): Promise<string> {
  const error: unknown = await call.then(
    () => expect.fail("expected a ToolInputError, but the call succeeded"),
    (err: unknown) => err,
  );
  expect(error).toMatchObject({ name: "ToolInputError" });
  const text = (error as Error).message;
  expect(text).toMatch(message);
  return text;
}

/** The highest growth of Buffer memory (what a blob read allocates) while `call` runs. */
async function peakBufferGrowth(call: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().arrayBuffers;
  let peak = before;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
  };
  const timer = setInterval(sample, 1);
  try {
    await call().catch(() => undefined);
  } finally {
    clearInterval(timer);
    sample();
  }
  return peak - before;
}

describe("read_file", () => {
  it.each([
    ["../../etc/passwd", /^read_file: the path "..\/..\/etc\/passwd" has a ".." segment/],
    ["/etc/passwd", /^read_file: the path "\/etc\/passwd" is absolute/],
    ["/proc/self/environ", /is absolute/],
    ["src/../../../etc/passwd", /has a ".." segment/],
    ["./src/app.ts", /empty or "." segment/],
    ["src\0/app.ts", /control character/],
  ])("refuses %j before asking git", async (path, message) => {
    await refusal(reader().readFile({ path }), message);
  });

  it("reads an ordinary file of either side (the negative control)", async () => {
    const head = await reader().readFile({ path: "src/app.ts" });
    expect(head).toMatchObject({ path: "src/app.ts", side: "head", startLine: 1, endLine: 20, totalLines: 20, truncated: false, nextStartLine: null });
    expect(head.text).toContain("export const line3 = 33;");
    const base = await reader().readFile({ path: "src/app.ts", side: "base" });
    expect(base.text).toContain("export const line3 = 3;");
  });

  it.each([
    ["links/environ", "/proc/self/environ"],
    ["links/passwd", "../../etc/passwd"],
  ])("refuses the committed symlink %s (to %s) without following it", async (path, target) => {
    const message = await refusal(reader().readFile({ path }), `read_file: "${path}" is a symlink; symlinks are not followed`);
    expect(message).not.toContain(target);
    expect(message).not.toMatch(/PATH=|root:x:0/);
  });

  it("does not reach through a symlinked directory", async () => {
    await refusal(reader().readFile({ path: "links/etc/passwd" }), 'read_file: "links/etc/passwd" does not exist at head');
  });

  it("refuses a submodule and a directory", async () => {
    await refusal(reader().readFile({ path: "vendor/lib" }), /^read_file: "vendor\/lib" is a submodule/);
    await refusal(reader().readFile({ path: "src" }), 'read_file: "src" is a directory; use list_dir');
    await refusal(reader().readFile({ path: "" }), /path: Too small/);
  });

  it("reads the committed blobs, never the work tree", async () => {
    writeFileSync(join(checkout.dir, "README.md"), "TAMPERED in the work tree\n");
    writeFileSync(join(checkout.dir, "worktree-only.txt"), "not committed\n");
    expect((await reader().readFile({ path: "README.md" })).text).toBe(BASE_SOURCE_FILES["README.md"]?.trimEnd());
    await refusal(reader().readFile({ path: "worktree-only.txt" }), "does not exist at head");
  });

  it("refuses a 50 MB blob by its size without reading it", async () => {
    let message = "";
    const growth = await peakBufferGrowth(async () => {
      message = await refusal(reader().readFile({ path: "big/fifty-mb.bin", startLine: 1 }), /is 50 MiB \(52428800 bytes\); files over 8 MiB are not read/);
    });
    expect(message).not.toBe("");
    expect(growth).toBeLessThan(16 * MIB);
    // The control: allowed to read it, the same call loads all of it (then finds it binary).
    const controlGrowth = await peakBufferGrowth(async () => {
      await refusal(reader({ maxRangeFileBytes: 64 * MIB }).readFile({ path: "big/fifty-mb.bin", startLine: 1 }), "is a binary file, 52428800 bytes");
    });
    expect(controlGrowth).toBeGreaterThan(40 * MIB);
  });

  it("reads a file over the whole-file limit only by line range", async () => {
    await refusal(reader().readFile({ path: "big/two-mib.txt" }), /is 2 MiB \(2097152 bytes\), over the 1 MiB read whole; ask for a line range/);
    const range = await reader().readFile({ path: "big/two-mib.txt", startLine: 1000, endLine: 1001 });
    expect(range).toMatchObject({ startLine: 1000, endLine: 1001, totalLines: 65_536, truncated: false });
    expect(range.text).toBe(`row 00001000 ${"r".repeat(18)}\nrow 00001001 ${"r".repeat(18)}`);
  });

  it("refuses a binary file and reads a text file beside it", async () => {
    await refusal(reader().readFile({ path: "bin/image.png" }), `read_file: "bin/image.png" is a binary file, ${BINARY.length} bytes`);
    expect((await reader().readFile({ path: "grep/fixed.txt" })).text).toBe("a.c\nabc\n-dash-needle");
  });

  it("pages through 10,000 lines", async () => {
    const first = await reader().readFile({ path: "big/ten-thousand.txt" });
    expect(first).toMatchObject({ startLine: 1, endLine: 400, totalLines: 10_000, truncated: true, nextStartLine: 401 });
    const second = await reader().readFile({ path: "big/ten-thousand.txt", startLine: first.nextStartLine ?? 0 });
    expect(second).toMatchObject({ startLine: 401, endLine: 800, nextStartLine: 801 });
    expect(second.text.split("\n")[0]).toBe("line 401");
    const last = await reader().readFile({ path: "big/ten-thousand.txt", startLine: 9901, endLine: 10_000 });
    expect(last).toMatchObject({ endLine: 10_000, truncated: false, nextStartLine: null });
    await refusal(reader().readFile({ path: "big/ten-thousand.txt", startLine: 10_001 }), "past the end: the file has 10000 lines");
  });

  it.each([
    ["weird/a*", "a star needle"],
    ["weird/[a]", "bracket needle"],
    ["weird/a", "plain a needle"],
    ["weird/sp ace é.md", "unicode needle"],
  ])("reads %j literally", async (path, text) => {
    expect((await reader().readFile({ path })).text).toBe(text);
  });

  it("does not glob: `weird/a?` names no file", async () => {
    await refusal(reader().readFile({ path: "weird/a?" }), "does not exist at head");
  });

  it("tells a file deleted by the PR (only at base) from a missing one", async () => {
    await refusal(reader().readFile({ path: "src/util.ts" }), 'read_file: "src/util.ts" does not exist at head');
    expect((await reader().readFile({ path: "src/util.ts", side: "base" })).text).toContain("return a + b;");
    expect((await reader().readFile({ path: "base-only.txt", side: "base" })).text).toBe("only on the base branch");
    await refusal(reader().readFile({ path: "base-only.txt" }), "does not exist at head");
  });
});

describe("list_dir", () => {
  it("lists the root and a directory with each entry's kind", async () => {
    const rootDir = await reader().listDir({});
    expect(rootDir.entries.map((entry) => entry.name)).toEqual(expect.arrayContaining(["README.md", "src", "links", "vendor", "many"]));
    expect((await reader().listDir({ path: "links/" })).entries).toEqual([
      { name: "environ", type: "symlink", size: "/proc/self/environ".length },
      { name: "etc", type: "symlink", size: 4 },
      { name: "passwd", type: "symlink", size: "../../etc/passwd".length },
    ]);
    expect((await reader().listDir({ path: "vendor" })).entries).toEqual([{ name: "lib", type: "submodule" }]);
    const weird = await reader().listDir({ path: "weird" });
    expect(weird.more).toBe(0);
    expect(weird.entries).toContainEqual({ name: "a*", type: "file", size: 14 });
  });

  it("caps the entries and says how many more there are", async () => {
    const many = await reader().listDir({ path: "many" });
    expect(many.entries).toHaveLength(500);
    expect(many.more).toBe(100);
    expect((await reader({ maxDirEntries: 10 }).listDir({ path: "weird" })).more).toBe(0);
  });

  it.each([
    ["links/etc", /is a symlink; symlinks are not followed/],
    ["vendor/lib", /is a submodule/],
    ["README.md", 'list_dir: "README.md" is a file; use read_file'],
    ["../", /has a ".." segment/],
    ["/etc", /is absolute/],
    ["nothing", 'list_dir: "nothing" does not exist at head'],
  ])("refuses %j", async (path, message) => {
    await refusal(reader().listDir({ path }), message);
  });
});

describe("grep", () => {
  it("searches fixed text by default and a regex when asked", async () => {
    expect((await reader().grep({ pattern: "a.c", path: "grep" })).hits).toEqual([{ path: "grep/fixed.txt", line: 1, text: "a.c" }]);
    const regex = await reader().grep({ pattern: "^a.c$", path: "grep", regex: true });
    expect(regex.hits.map((hit) => hit.text)).toEqual(["a.c", "abc"]);
    expect((await reader().grep({ pattern: "A.C", path: "grep", caseInsensitive: true })).hits).toHaveLength(1);
  });

  it("limits the search to a literal path: `weird/a*` does not match `weird/abc`", async () => {
    const hits = (await reader().grep({ pattern: "needle", path: "weird/a*" })).hits;
    expect(hits).toEqual([{ path: "weird/a*", line: 1, text: "a star needle" }]);
    const all = (await reader().grep({ pattern: "needle", path: "weird" })).hits.map((hit) => hit.path);
    expect(all.sort()).toEqual(["weird/[a]", "weird/a", "weird/a*", "weird/abc", "weird/sp ace é.md"]);
  });

  it("reads base and head, and skips binary files and symlinks", async () => {
    expect((await reader().grep({ pattern: "return a + b" })).hits).toEqual([]);
    expect((await reader().grep({ pattern: "return a + b", side: "base" })).hits).toEqual([{ path: "src/util.ts", line: 2, text: "  return a + b;" }]);
    expect((await reader().grep({ pattern: "IHDR" })).hits).toEqual([]);
    expect((await reader().grep({ pattern: "root:" })).hits).toEqual([]);
    // git grep searches regular files only: not even a symlink's target text.
    expect((await reader().grep({ pattern: "/proc/self/environ" })).hits).toEqual([]);
  });

  it("takes a pattern that looks like an option as text", async () => {
    const pwned = join(root, "pwned");
    expect((await reader().grep({ pattern: `--open-files-in-pager=touch ${pwned}` })).hits).toEqual([]);
    expect(existsSync(pwned)).toBe(false);
    expect((await reader().grep({ pattern: "-dash-needle" })).hits).toEqual([{ path: "grep/fixed.txt", line: 3, text: "-dash-needle" }]);
  });

  it("stops at the hit cap and says the answer is cut", async () => {
    const capped = await reader().grep({ pattern: "line", path: "big/ten-thousand.txt" });
    expect(capped.hits).toHaveLength(200);
    expect(capped).toMatchObject({ truncated: true, timedOut: false });
    expect(capped.hits[199]).toEqual({ path: "big/ten-thousand.txt", line: 200, text: "line 200" });
    const one = await reader().grep({ pattern: "line 9999", path: "big/ten-thousand.txt" });
    expect(one).toEqual({ hits: [{ path: "big/ten-thousand.txt", line: 9999, text: "line 9999" }], truncated: false, timedOut: false });
  });

  it("kills git at the deadline and answers what it found", async () => {
    const started = Date.now();
    const late = await reader({ grepDeadlineMs: 1 }).grep({ pattern: "line", path: "big" });
    expect(late.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await reader().grep({ pattern: "line", path: "big" })).timedOut).toBe(false);
  });

  it("refuses a pattern git's regex engine rejects, and more than one line", async () => {
    await refusal(reader().grep({ pattern: "(unclosed", regex: true }), /^grep: git cannot use the pattern as a POSIX extended regular expression/);
    expect((await reader().grep({ pattern: "(unclosed" })).hits).toEqual([]);
    await refusal(reader().grep({ pattern: "a\nb" }), "grep: the pattern must be one line of text");
    await refusal(reader().grep({ pattern: "x", path: "../.." }), /has a ".." segment/);
  });
});

describe("get_diff", () => {
  it("shows one path's diff, literally", async () => {
    const app = await reader().getDiff({ path: "src/app.ts" });
    expect(app).toMatchObject({ path: "src/app.ts", truncated: false, omitted: [], cut: null });
    expect(app.text).toMatch(/^diff --git a\/src\/app\.ts b\/src\/app\.ts\n/);
    expect(app.text).toContain("-export const line3 = 3;\n+export const line3 = 33;\n");
    const star = await reader().getDiff({ path: "weird/a*" });
    expect(star.text).toContain("+a star needle");
    expect(star.text).not.toContain("abc needle");
    await refusal(reader().getDiff({ path: "README.md" }), 'get_diff: the PR does not change "README.md"');
    await refusal(reader().getDiff({ path: "/etc/passwd" }), /is absolute/);
  });

  it("shows the whole PR within the byte budget and names the files left out", async () => {
    const whole = await reader().getDiff();
    expect(Buffer.byteLength(whole.text)).toBeLessThanOrEqual(200 * 1024);
    expect(whole).toMatchObject({ path: null, truncated: true, omitted: ["big/two-mib.txt"], omittedCount: 1, cut: null });
    expect(whole.text).toContain("diff --git a/src/util.ts b/src/util.ts\ndeleted file mode 100644");
    expect(whole.text).toContain("Binary files /dev/null and b/big/fifty-mb.bin differ");
    const small = await reader({ maxDiffBytes: 4096 }).getDiff({});
    expect(Buffer.byteLength(small.text)).toBeLessThanOrEqual(4096);
    // Files go in, in git's order, while they fit: the big ones are skipped, the small ones after them taken.
    expect(small.text).toMatch(/^diff --git a\/big\/fifty-mb\.bin b\/big\/fifty-mb\.bin\n/);
    expect(small.text).toContain("diff --git a/grep/fixed.txt b/grep/fixed.txt\n");
    expect(small.omitted.slice(0, 3)).toEqual(["big/ten-thousand.txt", "big/two-mib.txt", expect.stringMatching(/^many\//)]);
    expect(small.omitted).toHaveLength(100);
    expect(small.omittedCount).toBeGreaterThan(500);
    expect(await reader({ maxDiffBytes: 16 * MIB }).getDiff()).toMatchObject({ truncated: false, omitted: [] });
  });

  it("cuts one file's diff at a line boundary when it alone is over the budget", async () => {
    const cut = await reader({ maxDiffBytes: 4096 }).getDiff({ path: "big/ten-thousand.txt" });
    expect(cut).toMatchObject({ truncated: true, cut: "big/ten-thousand.txt", omitted: [] });
    expect(cut.text.endsWith("\n")).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(4096);
  });
});

it("refuses commits that are not full SHAs", () => {
  expect(() => new RepoReader({ ...checkout.git, headSha: "--output=x", baseSha: checkout.baseSha, fromSha: checkout.diff.fromSha })).toThrow(
    expect.objectContaining({ name: "AppError", code: "INTERNAL" }),
  );
});
