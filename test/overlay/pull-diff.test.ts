import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computePullDiff, type ChangedFile } from "@reviewbot/overlay/pull-diff";
import { forkRequest, gitContext, openCache } from "../support/clone-cache-harness.js";
import { BASE_SOURCE_FILES, createUpstream, type Upstream, type WorkTreeWriter } from "../support/git-fixture.js";
import { useTempDirs } from "../support/temp-dirs.js";

const tempDir = useTempDirs();

async function upstreamWithFork(label: string, edit: (tree: WorkTreeWriter) => void): Promise<Upstream> {
  const upstream = createUpstream(await tempDir(label));
  upstream.commitOn("fork", edit);
  return upstream;
}

async function diffFiles(upstream: Upstream): Promise<Map<string, ChangedFile>> {
  const diff = await computePullDiff(gitContext(upstream.home), join(upstream.dir, ".git"), upstream.rev("main"), upstream.rev("fork"));
  return new Map(diff.files.map((file) => [file.path, file]));
}

const APP = BASE_SOURCE_FILES["src/app.ts"] ?? "";

describe("computePullDiff", () => {
  it("reports renames with and without edits, deletions, mode and type changes", async () => {
    const upstream = await upstreamWithFork("diff-kinds", (tree) => {
      tree.rename("src/util.ts", "src/helpers.ts");
      tree.rename("src/app.ts", "lib/app.ts");
      tree.write("lib/app.ts", APP.replace("line3 = 3", "line3 = 33"));
      tree.remove("README.md");
      tree.write(".ai/context-script", "#!/bin/sh\n# $Id$\necho context\n", { executable: false });
      tree.symlink(".ai/review-rules.md", "prompts/system.txt");
    });

    const files = await diffFiles(upstream);

    expect([...files.keys()].sort()).toEqual([".ai/context-script", ".ai/review-rules.md", "README.md", "lib/app.ts", "src/helpers.ts"]);
    expect(files.get("src/helpers.ts")).toEqual({
      path: "src/helpers.ts",
      previousPath: "src/util.ts",
      status: "renamed",
      binary: false,
      addedLines: [],
      hunks: [],
      baseHunks: [],
    });
    expect(files.get("lib/app.ts")).toMatchObject({
      previousPath: "src/app.ts",
      status: "renamed",
      addedLines: [{ start: 3, end: 3 }],
      hunks: [{ start: 1, end: 6 }],
      baseHunks: [{ start: 1, end: 6 }],
    });
    expect(files.get("README.md")).toMatchObject({ status: "deleted", addedLines: [], hunks: [] });
    expect(files.get(".ai/context-script")).toMatchObject({ status: "modified", addedLines: [], hunks: [] });
    expect(files.get(".ai/review-rules.md")).toMatchObject({ status: "type-changed", addedLines: [{ start: 1, end: 1 }] });
  });

  it("marks binary files, including renamed ones, and gives them no lines", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
    const upstream = createUpstream(await tempDir("diff-binary"));
    upstream.commitOn("main", (tree) => {
      tree.write("assets/logo.png", Buffer.concat([png, Buffer.alloc(200, 7)]));
    });
    upstream.git(["branch", "--force", "fork", "main"]);
    upstream.commitOn("fork", (tree) => {
      tree.write("assets/new.bin", png);
      tree.rename("assets/logo.png", "assets/renamed.png");
    });

    const files = await diffFiles(upstream);

    expect(files.get("assets/new.bin")).toMatchObject({ status: "added", binary: true, addedLines: [] });
    expect(files.get("assets/renamed.png")).toMatchObject({ status: "renamed", previousPath: "assets/logo.png", binary: true, addedLines: [] });
  });

  const names = [
    "with space.txt",
    "new\nline.txt",
    "-leading-dash.txt",
    "--option-like=1",
    "tab\there.txt",
    "café/é.txt",
    "ctl\x01\x1b[31m\x7f.txt",
    'quote"d.txt',
    "back\\slash.txt",
    " leading and trailing space ",
  ];

  it.each(names)("reports %j by its exact name with its added lines", async (name) => {
    const upstream = await upstreamWithFork("diff-names", (tree) => {
      tree.write(name, "one\ntwo\n");
      tree.write("src/util.ts", `// touched\n${BASE_SOURCE_FILES["src/util.ts"] ?? ""}`);
    });

    const files = await diffFiles(upstream);

    expect([...files.keys()].sort()).toEqual([name, "src/util.ts"].sort());
    expect(files.get(name)).toEqual({
      path: name,
      previousPath: null,
      status: "added",
      binary: false,
      addedLines: [{ start: 1, end: 2 }],
      hunks: [{ start: 1, end: 2 }],
      baseHunks: [],
    });
    expect(files.get("src/util.ts")?.addedLines).toEqual([{ start: 1, end: 1 }]);
  });

  it("a binary file whose name contains a tab is still marked binary", async () => {
    const upstream = await upstreamWithFork("diff-binary-tab", (tree) => {
      tree.write("tab\tname.bin", Buffer.from([0, 1, 2, 0, 3]));
    });

    const files = await diffFiles(upstream);

    expect(files.get("tab\tname.bin")).toMatchObject({ status: "added", binary: true, addedLines: [] });
  });

  it("content lines that look like diff headers do not confuse the parser", async () => {
    const context = ["++ b/evil", "diff --git a/x b/x", "-- a/evil", "@@ -1,2 +1,200 @@", "+++ b/evil", "Binary files a/x and b/x differ"];
    // Removed "-- a/gone" prints as "--- a/gone"; added "++ b/added" prints as "+++ b/added".
    const removed = ["-- a/gone", "++ b/gone", "diff --git a/gone b/gone"];
    const added = ["++ b/added", "diff --git a/y b/y", "-- a/added", "@@ -5 +5,100 @@", "+++ b/other", "\\ No newline at end of file"];
    const upstream = createUpstream(await tempDir("diff-headers"));
    upstream.commitOn("main", (tree) => {
      tree.write("doc.txt", ["keep", ...context, "old", ...removed, "end", ""].join("\n"));
    });
    upstream.git(["branch", "--force", "fork", "main"]);
    upstream.commitOn("fork", (tree) => {
      tree.write("doc.txt", ["keep", ...context, "new", ...added, "end", ""].join("\n"));
      tree.write("zz-after.txt", "after\n");
    });

    const files = await diffFiles(upstream);

    expect([...files.keys()].sort()).toEqual(["doc.txt", "zz-after.txt"]);
    expect(files.get("doc.txt")?.addedLines).toEqual([{ start: 8, end: 14 }]);
    expect(files.get("zz-after.txt")?.addedLines).toEqual([{ start: 1, end: 1 }]);
  });

  it("handles a last line without a newline", async () => {
    const upstream = await upstreamWithFork("diff-eof", (tree) => {
      tree.write("src/util.ts", "export const x = 1;\nno newline");
    });

    const files = await diffFiles(upstream);

    expect(files.get("src/util.ts")?.addedLines).toEqual([{ start: 1, end: 2 }]);
  });

  it("uses three-dot semantics: lines changed only on main after the fork point are not the PR's", async () => {
    const upstream = await upstreamWithFork("diff-three-dot", (tree) => {
      tree.write("src/app.ts", APP.replace("line20 = 20", "line20 = 'pr'"));
    });
    const forkPoint = upstream.rev("main");
    upstream.commitOn("main", (tree) => {
      tree.write("src/app.ts", APP.replace("line1 = 1", "line1 = 'main'"));
      tree.write("src/main-only.ts", "export const onlyOnMain = true;\n");
    });
    const cache = await openCache(join(upstream.dir, "..", "cache"));

    const co = await cache.checkout(forkRequest(upstream));

    expect(co.diff.fromSha).toBe(forkPoint);
    expect(co.diff.baseSha).toBe(upstream.rev("main"));
    expect(co.diff.files.map((file) => file.path)).toEqual(["src/app.ts"]);
    expect(co.diff.files[0]?.addedLines).toEqual([{ start: 20, end: 20 }]);
    await co.release();
  });
});
