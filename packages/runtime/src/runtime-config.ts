import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { SANDBOX_ENGINE_NAMES } from "@reviewbot/core/engine-names";
import { DEFAULT_CHECKOUT_LIMITS } from "@reviewbot/overlay/checkout-limits";

const positiveInt = z.coerce.number().int().positive();

/** What `REVIEWBOT_ENGINE` may name: the engines a worker can run helpers in, or `auto`. */
export const ENGINE_CHOICES = ["auto", ...SANDBOX_ENGINE_NAMES] as const;
export type EngineChoiceSetting = (typeof ENGINE_CHOICES)[number];

/**
 * The repository's Podman settings (docs/architecture.md, 'Host facts': runc and cgroupfs, explicit
 * nofile and nproc) where a checkout has them, `infra/podman/containers.conf` (this file is
 * `packages/runtime/{src,dist}/`). The default of REVIEWBOT_CONTAINERS_CONF; a bundle without the
 * repository names its own copy.
 */
const REPO_CONTAINERS_CONF = fileURLToPath(new URL("../../../infra/podman/containers.conf", import.meta.url));

/**
 * The review runtime's slice of the operator's environment: clone cache, sandbox engines, the
 * operator policy file and the CA bundle install hooks trust. Apps spread `RuntimeConfig.shape` into their own strict schema (see
 * `parseEnvConfig`), so every app that runs the pipeline reads these names the same way.
 */
export const RuntimeConfig = z.object({
  // As root, a system path: bubblewrap's unprivileged uids must reach the rootfs cache and the
  // work trees, which they cannot under /root.
  REVIEWBOT_CACHE_DIR: z
    .string()
    .min(1)
    .default(process.getuid?.() === 0 ? "/var/cache/reviewbot" : join(homedir(), ".cache", "reviewbot")),
  REVIEWBOT_SANDBOX: z.string().optional(),
  REVIEWBOT_ENGINE: z.enum(ENGINE_CHOICES).default("auto"),
  REVIEWBOT_PODMAN_SOCKET: z.string().min(1).optional(),
  REVIEWBOT_DOCKER_SOCKET: z.string().min(1).optional(),
  // CONTAINERS_CONF of the private `podman system service` a worker starts without REVIEWBOT_PODMAN_SOCKET.
  REVIEWBOT_CONTAINERS_CONF: z.string().min(1).default(REPO_CONTAINERS_CONF),
  // FIRST-LAST: the host uids a root worker's sandboxes run as, one per run in flight.
  REVIEWBOT_SANDBOX_UIDS: z
    .string()
    .regex(/^\d{1,10}-\d{1,10}$/, "expected FIRST-LAST, e.g. 700000000-700065535")
    .transform((value) => {
      const [first = 0, last = 0] = value.split("-").map(Number);
      return { first, count: last - first + 1 };
    })
    .refine((range) => range.count >= 1, "LAST must not be below FIRST")
    .optional(),
  REVIEWBOT_POLICY_FILE: z.string().min(1).optional(),
  REVIEWBOT_GIT_TIMEOUT_MS: positiveInt.default(120_000),
  REVIEWBOT_LOCK_WAIT_MS: positiveInt.default(300_000),
  REVIEWBOT_MAX_FILES: positiveInt.default(DEFAULT_CHECKOUT_LIMITS.maxFiles),
  REVIEWBOT_MAX_TOTAL_BYTES: positiveInt.default(DEFAULT_CHECKOUT_LIMITS.maxTotalBytes),
  REVIEWBOT_MAX_PATH_DEPTH: positiveInt.default(DEFAULT_CHECKOUT_LIMITS.maxPathDepth),
  REVIEWBOT_MAX_PATH_BYTES: positiveInt.default(DEFAULT_CHECKOUT_LIMITS.maxPathBytes),
  // Outbound HTTPS may be TLS-intercepted by a proxy the host trusts (docs/architecture.md, 'Host
  // facts': TLS-intercepting proxy): the install hooks' registry proxy trusts the bundle Node is
  // given, else Debian's.
  NODE_EXTRA_CA_CERTS: z.string().optional(),
  SSL_CERT_FILE: z.string().optional(),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfig>;

/**
 * The variables that read back as `config`: how a process hands its validated runtime settings,
 * defaults included, to a process it starts (`reviewbot fleet`'s worker).
 */
export function runtimeConfigEnv(config: RuntimeConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of Object.keys(RuntimeConfig.shape) as (keyof RuntimeConfig)[]) {
    const value = config[name];
    if (value === undefined) continue;
    // The one structured setting, REVIEWBOT_SANDBOX_UIDS, back to FIRST-LAST.
    env[name] = typeof value === "object" ? `${String(value.first)}-${String(value.first + value.count - 1)}` : String(value);
  }
  return env;
}
