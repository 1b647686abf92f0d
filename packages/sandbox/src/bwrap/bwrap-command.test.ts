import { describe, expect, it } from "vitest";
import { bwrapCommand, NPROC_RUNS, prlimitArgs } from "./bwrap-command.js";

const limits = { nofile: 256, pids: 64, fsizeBytes: 1048576 };

describe("prlimitArgs", () => {
  it("sets equal soft and hard limits, nproc as a backstop over the pids limit, and no core dumps", () => {
    expect(prlimitArgs(limits)).toEqual(["--nofile=256:256", `--nproc=${64 * NPROC_RUNS}:${64 * NPROC_RUNS}`, "--fsize=1048576:1048576", "--core=0:0"]);
  });
});

describe("bwrapCommand", () => {
  const options = ["--unshare-all", "--setenv", "NAME", "value with spaces"];
  const argv = ["sh", "-c", "x"];
  const bwrap = ["/usr/bin/bwrap", "--args", "4", "--", ...argv];

  it("runs bwrap under prlimit by absolute path when the run has no cgroups", () => {
    expect(bwrapCommand(options, argv, limits, [])).toEqual({
      file: "/usr/bin/prlimit",
      args: [...prlimitArgs(limits), "--", ...bwrap],
      options: Buffer.from("--unshare-all\0--setenv\0NAME\0value with spaces\0"),
    });
  });

  it("keeps host paths and environment values out of every command line", () => {
    const command = bwrapCommand(["--ro-bind", "/var/cache/reviewbot/rootfs/x", "/", "--setenv", "K", "secret-ish"], argv, limits, []);
    expect(command.args.join(" ")).not.toMatch(/rootfs|secret-ish/);
  });

  it("joins the cgroups first, passing their paths as arguments and never inside the script", () => {
    const procs = ["/sys/fs/cgroup/memory/reviewbot/r1/cgroup.procs", "/sys/fs/cgroup/pids/reviewbot/r1/cgroup.procs"];
    const command = bwrapCommand(options, argv, limits, procs);
    expect(command.file).toBe("/bin/sh");
    const [flag, script, name, ...rest] = command.args;
    expect([flag, name]).toEqual(["-c", "sh"]);
    expect(script).not.toContain("/sys/fs/cgroup");
    expect(rest).toEqual([...procs, "--", "/usr/bin/prlimit", ...prlimitArgs(limits), "--", ...bwrap]);
  });
});
