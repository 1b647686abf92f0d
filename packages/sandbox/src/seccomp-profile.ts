import { DENIED_SYSCALLS } from "./denied-syscalls.js";

interface SyscallRule {
  readonly names: readonly string[];
  readonly action: string;
  readonly [key: string]: unknown;
}

interface OciSeccompProfile {
  readonly defaultAction: string;
  readonly syscalls: readonly SyscallRule[];
  readonly [key: string]: unknown;
}

/**
 * Derives our container seccomp profile from the engine's default one (default-deny, maintained
 * by the engine's authors): every denied system call is removed from every rule that allows it,
 * so the profile's default action (an errno) answers it. Throws when the input is not a
 * default-deny profile: narrowing an allow-by-default profile this way would prove nothing.
 */
export function deriveSeccompProfile(engineDefault: unknown): OciSeccompProfile {
  const profile = (engineDefault ?? {}) as Partial<OciSeccompProfile>;
  if (typeof profile.defaultAction !== "string" || !Array.isArray(profile.syscalls)) {
    throw new Error("the engine's seccomp profile has no defaultAction or syscalls list");
  }
  if (profile.defaultAction === "SCMP_ACT_ALLOW" || profile.defaultAction === "SCMP_ACT_LOG") {
    throw new Error(`the engine's seccomp profile allows by default (${profile.defaultAction})`);
  }
  const denied = new Set(Object.keys(DENIED_SYSCALLS));
  const rules: readonly SyscallRule[] = profile.syscalls;
  const syscalls = rules
    .map((rule) => (rule.action === "SCMP_ACT_ALLOW" ? { ...rule, names: rule.names.filter((name: string) => !denied.has(name)) } : rule))
    .filter((rule) => rule.names.length > 0);
  return { ...profile, defaultAction: profile.defaultAction, syscalls };
}
