import { AppError } from "@reviewbot/core/errors";
import { z } from "zod";
import { fromZodIssues, quote, requiredMessage, WithoutProtoKey } from "./config-error.js";

const MiB = 1024 * 1024;

/** Names of images in the operator's allowlist, as a repository asks for them (`base`, `python-3-12`). */
export const IMAGE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

// A container image reference (`localhost/reviewbot/base:latest`, `…@sha256:…`): no spaces, no
// controls, nothing a shell or an engine API could read as a second argument.
const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,511}$/;

const ImageAllowlist = WithoutProtoKey.pipe(
  z.record(
    z.string().regex(IMAGE_NAME, `must match ${String(IMAGE_NAME)}`),
    z.string().regex(IMAGE_REFERENCE, "is not an image reference (letters, digits and ._/:@+- only)"),
  ),
);

const count = (fallback: number) => z.int().positive().default(fallback);

// A DNS name of at least two labels, lower case (compared exactly with a CONNECT's host): no IP
// literal, no port, no wildcard. The registry proxy allows `<name>:443` and nothing else.
const REGISTRY_HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** What happens to a helper's `install` hook: `off` (not run, the helper runs without it) or `registry`. */
export const INSTALL_HOOK_MODES = ["off", "registry"] as const;
export type InstallHookMode = (typeof INSTALL_HOOK_MODES)[number];

/**
 * The operator's ceilings for one sandboxed helper run (and `concurrency`, helpers run in
 * parallel per review). A repository may ask for less, never more (see `narrowLimits`).
 */
export const OperatorLimits = z
  .strictObject({
    timeoutSeconds: count(300),
    memoryBytes: count(1024 * MiB),
    // Docker and Podman accept fractional CPUs down to 0.01.
    cpus: z.number().min(0.01).max(1024).default(1),
    pids: count(256),
    outputBytes: count(MiB),
    tmpfsBytes: count(64 * MiB),
    concurrency: count(2),
    nofile: count(1024),
    fsizeBytes: count(256 * MiB),
  })
  .readonly();
export type OperatorLimits = z.infer<typeof OperatorLimits>;

/**
 * The worker's own ceilings on reading helper output, which a PR controls, into findings. Apart from
 * `limits` because no repository may ask for more or less: they bound the worker process, not a
 * sandbox. `structuredOutputBytes` replaces `limits.outputBytes` (when larger) as the output cap
 * of a helper whose format is a document (`sarif`, `checkstyle`, `rdjson`, `eslint-json`,
 * `ruff-json`), which is parsed whole or not at all: real Semgrep SARIF is 2–3 MB, most of it
 * rule metadata. Parsing runs in a process of its own held to `parseMemoryBytes` of heap and killed
 * after `parseSeconds`. At most `perHelper` findings of one helper, and `perReview` findings of
 * `retainedBytes` (path, message and rule characters plus 100 per finding) in one review, are
 * kept.
 */
export const FindingsLimits = z
  .strictObject({
    structuredOutputBytes: count(8 * MiB),
    parseSeconds: z.number().min(0.01).max(3600).default(10),
    // Below 16 MiB the parse process cannot even start (measured, Node 20).
    parseMemoryBytes: z
      .int()
      .min(32 * MiB)
      .default(128 * MiB),
    perHelper: count(5_000),
    perReview: count(20_000),
    retainedBytes: count(16 * MiB),
  })
  .readonly();
export type FindingsLimits = z.infer<typeof FindingsLimits>;

/**
 * The operator's policy: limits, findings limits, the image allowlist (name → image reference),
 * the image a helper gets when it names none, whether install hooks run (`installHooks`) and the
 * registry hosts their sandbox may reach on port 443 (`installRegistries`). Strict: an unknown
 * key is an error, never ignored.
 */
export const OperatorPolicy = z
  .strictObject({
    limits: OperatorLimits.prefault({}),
    findings: FindingsLimits.prefault({}),
    // The images scripts/setup.sh builds (infra/images).
    images: ImageAllowlist.default({
      base: "localhost/reviewbot/base:latest",
      python: "localhost/reviewbot/python:latest",
      node: "localhost/reviewbot/node:latest",
    }).readonly(),
    defaultImage: z.string().default("base"),
    // Install hooks run in their own container whose only way out is the worker's registry
    // proxy (docs/review.md, "Install hooks"); off by default.
    installHooks: z.enum(INSTALL_HOOK_MODES).default("off"),
    installRegistries: z
      .array(z.string().regex(REGISTRY_HOST, "must be a lower-case DNS name (no IP, port or wildcard)"))
      .min(1)
      .max(16)
      .default(["registry.npmjs.org"])
      .readonly(),
  })
  .superRefine((policy, ctx) => {
    if (!Object.hasOwn(policy.images, policy.defaultImage)) {
      const names = Object.keys(policy.images).join(", ");
      const message = `${quote(policy.defaultImage)} is not a key of images (${names})`;
      ctx.addIssue({ code: "custom", path: ["defaultImage"], message });
    }
  })
  .readonly();
export type OperatorPolicy = z.infer<typeof OperatorPolicy>;

/**
 * Validates the operator's policy (from the composition root's config) and fills in defaults.
 *
 * @throws AppError `CONFIG_INVALID` naming every bad or unknown key.
 */
export function parseOperatorPolicy(input: unknown): OperatorPolicy {
  const parsed = OperatorPolicy.safeParse(input, { error: requiredMessage });
  if (parsed.success) return parsed.data;
  const errors = fromZodIssues(parsed.error.issues);
  throw new AppError("CONFIG_INVALID", `invalid operator policy: ${errors.map((e) => e.message).join("; ")}`, {
    details: { paths: errors.map((e) => e.path) },
  });
}
