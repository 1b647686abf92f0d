import { randomUUID } from "node:crypto";
import { chmod, rename, rm, writeFile } from "node:fs/promises";

export interface GitCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * git asks this script for credentials; it answers from two variables set on that one git process,
 * so a token is never in argv, a remote URL, .git/config, a credential store or a file on disk.
 */
const SCRIPT = `#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' "$REVIEWBOT_GIT_USERNAME" ;;
  *) printf '%s\\n' "$REVIEWBOT_GIT_PASSWORD" ;;
esac
`;

/**
 * Writes the script to `path` atomically: every process opening the cache writes it while other
 * processes' git may be running it. Rewritten in place, a git that ran it mid-write failed with
 * `Text file busy` or read an empty script and sent an empty password (issue 25); a rename swaps
 * the whole file in one step, and a git already running the old one keeps reading it.
 */
export async function writeAskpass(path: string): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, SCRIPT, { mode: 0o700, flag: "wx" });
    await chmod(temporary, 0o700);
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/** The per-call environment that hands `credentials` to git through the askpass script. */
export function askpassEnvironment(scriptPath: string, credentials: GitCredentials): Record<string, string> {
  return {
    GIT_ASKPASS: scriptPath,
    REVIEWBOT_GIT_USERNAME: credentials.username,
    REVIEWBOT_GIT_PASSWORD: credentials.password,
  };
}
