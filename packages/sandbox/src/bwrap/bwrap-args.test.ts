import { describe, expect, it } from "vitest";
import { bwrapArgs, sandboxCwd, type BwrapArgsInput } from "./bwrap-args.js";

const input: BwrapArgsInput = {
  rootfs: "/var/cache/reviewbot/rootfs/abc",
  worktree: "/var/lib/reviewbot/jobs/j1/worktree",
  cwd: "src",
  env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
  argv: ["flake8", "--", "-x"],
  tmpfsBytes: 1048576,
  cgroupDirs: { memory: "/sys/fs/cgroup/memory/reviewbot/r1", pids: "/sys/fs/cgroup/pids/reviewbot/r1" },
};

// How many values each bwrap option takes (bwrap --help).
const ARITY: Readonly<Record<string, number>> = {
  "--cap-drop": 1,
  "--hostname": 1,
  "--uid": 1,
  "--gid": 1,
  "--ro-bind": 2,
  "--proc": 1,
  "--dev": 1,
  "--size": 1,
  "--tmpfs": 1,
  "--chdir": 1,
  "--setenv": 2,
  "--seccomp": 1,
};

/** The options before `--`, each with its values. */
function options(args: readonly string[]): string[][] {
  const tuples: string[][] = [];
  for (let index = 0; index < args.length && args[index] !== "--";) {
    const width = 1 + (ARITY[args[index] ?? ""] ?? 0);
    tuples.push(args.slice(index, index + width));
    index += width;
  }
  return tuples;
}

describe("bwrapArgs", () => {
  const args = bwrapArgs(input);
  const tuples = options(args);

  it.each([
    [["--unshare-all"]],
    [["--unshare-user"]],
    [["--disable-userns"]],
    [["--cap-drop", "ALL"]],
    [["--die-with-parent"]],
    [["--new-session"]],
    [["--clearenv"]],
    [["--hostname", "sandbox"]],
    [["--uid", "10001"]],
    [["--gid", "10001"]],
    [["--ro-bind", "/var/cache/reviewbot/rootfs/abc", "/"]],
    [["--ro-bind", "/var/lib/reviewbot/jobs/j1/worktree", "/work"]],
    [["--proc", "/proc"]],
    [["--dev", "/dev"]],
    [["--ro-bind", "/sys/fs/cgroup/memory/reviewbot/r1", "/sys/fs/cgroup/memory"]],
    [["--ro-bind", "/sys/fs/cgroup/pids/reviewbot/r1", "/sys/fs/cgroup/pids"]],
    [["--size", "1048576"]],
    [["--tmpfs", "/tmp"]],
    [["--chdir", "/work/src"]],
    [["--seccomp", "3"]],
  ])("has %j", (expected) => {
    expect(tuples).toContainEqual(expected);
  });

  it("sizes the /tmp tmpfs (--size applies to the next --tmpfs)", () => {
    const size = args.indexOf("--size");
    expect(args.slice(size, size + 4)).toEqual(["--size", "1048576", "--tmpfs", "/tmp"]);
  });

  it("mounts nothing else: no host /etc, /home or other writable path", () => {
    const mountOption = /^--((ro-|dev-)?bind(-try|-data)?|tmpfs|proc|dev|dir|symlink|file|mqueue|remount-ro|overlay.*)$/;
    const mounts = tuples.filter(([option]) => mountOption.test(option ?? ""));
    expect(mounts.map((tuple) => tuple.join(" "))).toEqual([
      "--ro-bind /var/cache/reviewbot/rootfs/abc /",
      "--ro-bind /var/lib/reviewbot/jobs/j1/worktree /work",
      "--proc /proc",
      "--dev /dev",
      "--ro-bind /sys/fs/cgroup/memory/reviewbot/r1 /sys/fs/cgroup/memory",
      "--ro-bind /sys/fs/cgroup/pids/reviewbot/r1 /sys/fs/cgroup/pids",
      "--tmpfs /tmp",
    ]);
  });

  it("passes the environment only as --setenv after --clearenv", () => {
    const clear = args.indexOf("--clearenv");
    const setenvs = tuples.filter(([option]) => option === "--setenv");
    expect(setenvs).toEqual([
      ["--setenv", "PATH", "/usr/bin:/bin"],
      ["--setenv", "LANG", "C.UTF-8"],
    ]);
    expect(args.indexOf("--setenv")).toBeGreaterThan(clear);
  });

  it("holds options only: the command never enters them, so it cannot be read as one", () => {
    expect(args).not.toContain("flake8");
    expect(args.at(-2)).toBe("--seccomp");
  });

  it("leaves out the cgroup mounts when the run has no cgroups", () => {
    const without = bwrapArgs({ ...input, cgroupDirs: undefined });
    expect(without.join(" ")).not.toContain("/sys/fs/cgroup");
  });

  it.each([
    ["a relative rootfs", { rootfs: "rootfs/abc" }],
    ["an unnormalised worktree", { worktree: "/var/lib/reviewbot/../../etc" }],
    ["the host root as worktree", { worktree: "/" }],
    ["an empty argv", { argv: [] }],
    ["a NUL in argv", { argv: ["sh", "a\0b"] }],
    ["an env name with =", { env: { "A=B": "c" } }],
    ["an empty env name", { env: { "": "c" } }],
    ["a NUL in an env value", { env: { A: "b\0c" } }],
    ["a zero tmpfs", { tmpfsBytes: 0 }],
    ["a cwd outside /work", { cwd: "../etc" }],
  ])("refuses %s", (_label, override) => {
    expect(() => bwrapArgs({ ...input, ...override })).toThrow(expect.objectContaining({ code: "POLICY_DENIED" }));
  });
});

describe("sandboxCwd", () => {
  it.each([
    [".", "/work"],
    ["", "/work"],
    ["./", "/work"],
    ["src", "/work/src"],
    ["src/", "/work/src"],
    ["a//b/./c", "/work/a/b/c"],
    ["a/../b", "/work/b"],
    ["/etc", "/work/etc"],
    ["-rf", "/work/-rf"],
  ])("joins %j to %j", (cwd, expected) => {
    expect(sandboxCwd(cwd)).toBe(expected);
  });

  it.each(["..", "../work2", "a/../../etc", "a\0b"])("refuses %j", (cwd) => {
    expect(() => sandboxCwd(cwd)).toThrow(expect.objectContaining({ code: "POLICY_DENIED" }));
  });
});
