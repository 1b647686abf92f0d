import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DENIED_SYSCALLS } from "./denied-syscalls.js";
import { deriveSeccompProfile } from "./seccomp-profile.js";

const allowed = (profile: ReturnType<typeof deriveSeccompProfile>): Set<string> =>
  new Set(profile.syscalls.filter((rule) => rule.action === "SCMP_ACT_ALLOW").flatMap((rule) => rule.names));

describe("deriveSeccompProfile", () => {
  it("removes every denied call from Podman's default profile and keeps the rest", () => {
    const engineDefault: unknown = JSON.parse(readFileSync("/usr/share/containers/seccomp.json", "utf8"));
    const before = allowed(engineDefault as ReturnType<typeof deriveSeccompProfile>);
    expect(before.has("unshare")).toBe(true);
    const after = allowed(deriveSeccompProfile(engineDefault));
    for (const name of Object.keys(DENIED_SYSCALLS)) expect(after.has(name), name).toBe(false);
    expect(after.has("read")).toBe(true);
    expect(after.has("clone")).toBe(true);
  });

  it.each([
    [{ defaultAction: "SCMP_ACT_ALLOW", syscalls: [] }, "allows by default"],
    [{ syscalls: [] }, "no defaultAction"],
    [null, "no defaultAction"],
  ])("refuses %j", (input, message) => {
    expect(() => deriveSeccompProfile(input)).toThrow(message);
  });

  it("drops rules left without names", () => {
    const profile = deriveSeccompProfile({
      defaultAction: "SCMP_ACT_ERRNO",
      syscalls: [
        { names: ["bpf"], action: "SCMP_ACT_ALLOW" },
        { names: ["read"], action: "SCMP_ACT_ALLOW" },
      ],
    });
    expect(profile.syscalls).toEqual([{ names: ["read"], action: "SCMP_ACT_ALLOW" }]);
  });
});
