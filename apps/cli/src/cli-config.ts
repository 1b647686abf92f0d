import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { parseOperatorPolicy, type OperatorPolicy } from "@reviewbot/policy/operator-policy";

const positiveInt = z.coerce.number().int().positive();

/**
 * The CLI's operator settings, from REVIEWBOT_* environment variables. Strict: an unknown
 * REVIEWBOT_* name is an error (a typo must not silently fall back to a default).
 */
export const CliConfig = z
  .object({
    // As root, a system path: bubblewrap's unprivileged user must reach the rootfs cache and the
    // work trees, which it cannot under /root.
    REVIEWBOT_CACHE_DIR: z.string().min(1).default(process.getuid?.() === 0 ? "/var/cache/reviewbot" : join(homedir(), ".cache", "reviewbot")),
    REVIEWBOT_SANDBOX: z.string().optional(),
    REVIEWBOT_ENGINE: z.enum(["auto", "podman", "docker", "bwrap"]).default("auto"),
    REVIEWBOT_PODMAN_SOCKET: z.string().min(1).optional(),
    REVIEWBOT_DOCKER_SOCKET: z.string().min(1).optional(),
    REVIEWBOT_POLICY_FILE: z.string().min(1).optional(),
    REVIEWBOT_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("warn"),
    REVIEWBOT_GIT_TIMEOUT_MS: positiveInt.default(120_000),
    REVIEWBOT_LOCK_WAIT_MS: positiveInt.default(300_000),
    REVIEWBOT_MAX_FILES: positiveInt.default(100_000),
    REVIEWBOT_MAX_TOTAL_BYTES: positiveInt.default(1024 * 1024 * 1024),
    REVIEWBOT_MAX_PATH_DEPTH: positiveInt.default(64),
    REVIEWBOT_MAX_PATH_BYTES: positiveInt.default(4096),
  })
  .strict();
export type CliConfig = z.infer<typeof CliConfig>;

/** Reads the REVIEWBOT_* slice of an environment; throws CONFIG_INVALID naming the variable. */
export function loadCliConfig(env: NodeJS.ProcessEnv): Readonly<CliConfig> {
  const slice = Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith("REVIEWBOT_")));
  const parsed = CliConfig.safeParse(slice);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.code === "unrecognized_keys" ? issue.keys.join(", ") : String(issue?.path[0] ?? "");
    throw new AppError("CONFIG_INVALID", `${key}: ${issue?.message ?? "invalid"}`);
  }
  return Object.freeze(parsed.data);
}

/** The operator policy: defaults, or the JSON file REVIEWBOT_POLICY_FILE names, validated strictly. */
export async function loadOperatorPolicy(config: CliConfig): Promise<OperatorPolicy> {
  if (config.REVIEWBOT_POLICY_FILE === undefined) return parseOperatorPolicy({});
  const text = await readFile(config.REVIEWBOT_POLICY_FILE, "utf8").catch((err: unknown) => {
    throw new AppError("CONFIG_INVALID", `REVIEWBOT_POLICY_FILE: cannot read ${config.REVIEWBOT_POLICY_FILE}`, { cause: err });
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new AppError("CONFIG_INVALID", `REVIEWBOT_POLICY_FILE: ${config.REVIEWBOT_POLICY_FILE} is not valid JSON`, { cause: err });
  }
  return parseOperatorPolicy(json);
}

