import { describe, expect, it } from "vitest";
import { inheritedEnv } from "./inherited-env.js";

describe("inheritedEnv", () => {
  const parent = { PATH: "/opt/bin:/usr/bin", HOME: "/home/w", GITHUB_TOKEN: "ghs_secret", XDG_RUNTIME_DIR: undefined };

  it("passes the named variables, the parent's value over the default, and nothing else", () => {
    expect(inheritedEnv({ PATH: "/usr/bin:/bin", HOME: "/" }, parent)).toEqual({ PATH: "/opt/bin:/usr/bin", HOME: "/home/w" });
  });

  it("takes the default for a variable the parent lacks, and leaves out one that has no default", () => {
    expect(inheritedEnv({ TMPDIR: "/tmp", XDG_RUNTIME_DIR: null, LANG: null }, parent)).toEqual({ TMPDIR: "/tmp" });
  });
});
