/**
 * The engines that isolate a helper, strongest isolation first: the one list every engine setting
 * (REVIEWBOT_ENGINE, `--engine`) and every engine a report may name derive from.
 */
export const SANDBOX_ENGINE_NAMES = ["podman", "docker", "bwrap"] as const;
export type SandboxEngineName = (typeof SANDBOX_ENGINE_NAMES)[number];

/** What a run reports it ran in: a sandbox engine, or `none` (REVIEWBOT_SANDBOX=off's escape hatch). */
export const ENGINE_NAMES = [...SANDBOX_ENGINE_NAMES, "none"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** The engines that run helpers in containers through a daemon's API (dockerode). */
export type ContainerEngineName = Extract<SandboxEngineName, "podman" | "docker">;
