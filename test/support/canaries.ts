import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { expect } from "vitest";

/** The worker-environment variable that carries a canary; its very name must never show inside. */
export const CANARY_ENV_NAME = "REVIEWBOT_TEST_APP_KEY";

/** Files the worker user (root) can read, as an App key, an SSH key and the worker's config would be. */
export const CANARY_PATHS = ["/etc/reviewbot/app-key.pem", "/root/.ssh/id_reviewbot_canary", "/var/lib/reviewbot-canary/github-app.private-key.pem"] as const;

export interface Canaries {
  /** Every planted secret value. */
  readonly values: readonly string[];
  /** Fails when `output` holds any canary or the environment variable's name. */
  assertAbsent(output: Buffer | string, where: string): void;
  /** Removes the files (and the directories it created) and the environment variable; idempotent. */
  remove(): Promise<void>;
}

/**
 * Plants secret-looking values where a worker keeps secrets: its environment and root-readable
 * key files, each with its own random value. Plant before any engine starts, so that whatever the
 * engine inherits from the worker carries them too.
 */
export async function plantCanaries(): Promise<Canaries> {
  const envValue = `canary-${randomUUID()}`;
  process.env[CANARY_ENV_NAME] = envValue;
  const created: string[] = [];
  const values = [envValue];
  for (const path of CANARY_PATHS) {
    const value = `canary-${randomUUID()}`;
    const dir = dirname(path);
    const made = await mkdir(dir, { recursive: true, mode: 0o700 });
    if (made !== undefined) created.push(made);
    await writeFile(path, `-----BEGIN RSA PRIVATE KEY-----\n${value}\n-----END RSA PRIVATE KEY-----\n`, { mode: 0o600 });
    created.push(path);
    values.push(value);
  }
  return {
    values,
    assertAbsent(output, where) {
      const text = Buffer.isBuffer(output) ? output.toString("latin1") : output;
      for (const needle of [...values, CANARY_ENV_NAME]) {
        expect(text.includes(needle), `${where}: output contains the canary ${needle}`).toBe(false);
      }
    },
    async remove() {
      Reflect.deleteProperty(process.env, CANARY_ENV_NAME);
      // Files first, then the directories this call created, deepest last created first.
      for (const path of created.reverse()) await rm(path, { recursive: true, force: true });
      created.length = 0;
    },
  };
}
