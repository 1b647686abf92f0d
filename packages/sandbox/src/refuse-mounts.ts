import { AppError } from "@reviewbot/core/errors";
import type { EngineName } from "@reviewbot/core/engine-names";
import type { SandboxSpec } from "./sandbox-spec.js";

/**
 * Engines without mount support refuse a spec that has mounts rather than run it without them:
 * install hooks and their cached results need the container engine (docs/review.md).
 *
 * @throws AppError `POLICY_DENIED` when `spec.mounts` is not empty.
 */
export function refuseMounts(spec: SandboxSpec, engine: EngineName): void {
  const refusal = mountsRefusal(spec, engine);
  if (refusal !== undefined) throw refusal;
}

/** The error {@link refuseMounts} throws, or undefined when the spec has no mounts. */
export function mountsRefusal(spec: SandboxSpec, engine: EngineName): AppError | undefined {
  if ((spec.mounts ?? []).length === 0) return undefined;
  return new AppError("POLICY_DENIED", `mounts: the ${engine} engine does not mount extra directories (install hooks need the container engine)`);
}
