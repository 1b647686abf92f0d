/** `PATH` for a child process when the worker has none: the usual system directories. */
export const DEFAULT_PATH = "/usr/bin:/bin";
/** `PATH` for a root service (a daemon that runs helpers from sbin). */
export const SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The variables a child process inherits from this one, by name and nothing else: each name maps
 * to its default, or to `null` when the variable is passed only if set. A child never sees the
 * rest of the parent's environment (secrets, tokens, the operator's settings).
 */
export function inheritedEnv(names: Readonly<Record<string, string | null>>, from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, fallback] of Object.entries(names)) {
    const value = from[name] ?? fallback;
    if (value !== null) env[name] = value;
  }
  return env;
}

/** This process's `PATH` for a child, or `DEFAULT_PATH` when it has none. */
export function inheritedPath(from: NodeJS.ProcessEnv = process.env): string {
  return from.PATH ?? DEFAULT_PATH;
}
