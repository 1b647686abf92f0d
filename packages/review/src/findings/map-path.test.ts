import { quote } from "@reviewbot/policy/config-error";
import { describe, expect, it } from "vitest";
import { repeatTo } from "./fixtures/hostile-output.js";
import { growthRatio } from "./fixtures/time-ratio.js";
import { mapFindingPath, MAX_PATH_LENGTH } from "./map-path.js";

const root = { mountPoint: "/work", cwd: "." };

describe("mapFindingPath", () => {
  it.each([
    ["/work/app.py", root, "app.py"],
    ["/work/src/../lib/./a.ts", root, "lib/a.ts"],
    ["file:///work/src/a.py", root, "src/a.py"],
    ["file:///work/docs/my%20notes.md", root, "docs/my notes.md"],
    ["./app.py", root, "app.py"],
    ["app.py", { mountPoint: "/work", cwd: "pkg/sub" }, "pkg/sub/app.py"],
    ["../shared/x.py", { mountPoint: "/work", cwd: "pkg/sub" }, "pkg/shared/x.py"],
    ["app.py", { mountPoint: "/work", cwd: "/work/pkg" }, "pkg/app.py"],
    ["app.py", { mountPoint: "/work/", cwd: "./pkg/" }, "pkg/app.py"],
    ["src//a.py", root, "src/a.py"],
    ["/srv/repo/a.py", { mountPoint: "/srv/repo", cwd: "." }, "a.py"],
    ["naïve ünïcode.py", root, "naïve ünïcode.py"],
    ["/srv/a.py", { mountPoint: "/", cwd: "." }, "srv/a.py"],
  ])("maps %j (%j) to %j", (path, mapping, expected) => {
    expect(mapFindingPath(path, mapping)).toEqual({ path: expected, problem: null });
  });

  it.each([
    ["../outside.py", root, "leaves the repository"],
    ["pkg/../../x", root, "leaves the repository"],
    ["../../x.py", { mountPoint: "/work", cwd: "pkg" }, "leaves the repository"],
    ["/work/../etc/passwd", root, "leaves the repository"],
    ["/etc/passwd", root, "is absolute and outside the mount point /work"],
    ["/workspace/a.py", root, "is absolute and outside the mount point /work"],
    ["file:///etc/passwd", root, "is absolute and outside the mount point /work"],
    ["file://evil/work/a.py", root, "is a file URI with a host"],
    ["file:///work/%E0%A4%A", root, "is a file URI with a malformed percent-escape"],
    ["file:///work/a%00.py", root, "contains a NUL byte"],
    ["a\u0000.py", root, "contains a NUL byte"],
    ["a\n.py", root, "contains a control or bidi character"],
    ["a\u202e.py", root, "contains a control or bidi character"],
    ["src\\a.py", root, "contains a backslash"],
    ["", { mountPoint: "/work", cwd: "pkg" }, "is empty"],
    ["/work", root, "names the repository root, not a file"],
    [".", root, "names the repository root, not a file"],
    ["a.py", { mountPoint: "/work", cwd: "../x" }, 'cannot be resolved: the helper\'s cwd "../x" is outside the repository'],
    ["a.py", { mountPoint: "/work", cwd: "/etc" }, 'cannot be resolved: the helper\'s cwd "/etc" is outside the repository'],
  ])("refuses %j (%j): %s", (path, mapping, reason) => {
    expect(mapFindingPath(path, mapping)).toEqual({ path: null, problem: `path ${quote(path)} ${reason}` });
  });
});

describe("mapFindingPath limits", () => {
  it.each([
    ["a".repeat(MAX_PATH_LENGTH + 1), `is longer than ${MAX_PATH_LENGTH} characters`],
    ["lone\ud800surrogate.py", "is not valid Unicode (a lone surrogate)"],
  ])("refuses %#", (path, reason) => {
    expect(mapFindingPath(path, root).problem).toBe(`path ${quote(path)} ${reason}`);
  });

  it("keeps a valid surrogate pair", () => {
    expect(mapFindingPath("emoji-😀.py", root)).toEqual({ path: "emoji-😀.py", problem: null });
  });

  it("returns the same result for the same path mapped twice in a row", () => {
    const path = `/work/${"d/".repeat(1000)}a.ts`;
    expect(mapFindingPath(path, root)).toBe(mapFindingPath(path, root));
    expect(mapFindingPath(path, { mountPoint: "/work", cwd: "x" })).toEqual(mapFindingPath(path, root));
  });

  // Distinct paths of many `..` and empty segments, and paths just under the cap.
  const paths = (size: number) =>
    repeatTo(size, 13, "\n", (index, random) => (random() < 0.5 ? `/work/${"a/../".repeat(1 + (index % 400))}${index}.py` : `${"x/".repeat(2000)}${index}`));

  it("maps distinct hostile paths in linear time (4× the input, at most 6× the time)", () => {
    const run = (text: string) => text.split("\n").map((path) => mapFindingPath(path, root));
    expect(growthRatio(run, paths, 500_000)).toBeLessThanOrEqual(6);
  }, 60_000);
});
