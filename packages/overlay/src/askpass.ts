import { chmod, writeFile } from "node:fs/promises";

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

export async function writeAskpass(path: string): Promise<void> {
  await writeFile(path, SCRIPT, { mode: 0o700 });
  await chmod(path, 0o700);
}

/** The per-call environment that hands `credentials` to git through the askpass script. */
export function askpassEnvironment(scriptPath: string, credentials: GitCredentials): Record<string, string> {
  return {
    GIT_ASKPASS: scriptPath,
    REVIEWBOT_GIT_USERNAME: credentials.username,
    REVIEWBOT_GIT_PASSWORD: credentials.password,
  };
}
