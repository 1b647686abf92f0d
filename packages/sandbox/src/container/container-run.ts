import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import { cancelledResult, isAborted } from "../cancelled-result.js";
import { containerProfile, type ContainerProfileOptions } from "./container-profile.js";
import type { EngineService } from "./engine-service.js";
import { podmanAttachFailure } from "./podman-attach-failure.js";
import { runAttached, type AttachContext } from "./run-attached.js";
import type { RunsInFlight } from "./runs-in-flight.js";
import { checkMounts } from "../sandbox-mounts.js";
import { WritableMounts } from "./writable-mounts.js";
import { createAsRunUid, type RunUid, type RunUids } from "../uids/run-uid.js";
import type { SandboxResult, SandboxSpec } from "../sandbox-spec.js";

/** What a run needs of its engine: its settings (as in ContainerEngineOptions) and its runs in flight. */
export interface RunContext extends AttachContext {
  readonly seccomp: string;
  readonly stateDir: string;
  readonly service: EngineService | undefined;
  readonly uids: RunUids | undefined;
  readonly inFlight: RunsInFlight;
}

/**
 * Runs `spec` in a fresh container (see runOnce). A run whose output Podman lost (its attach to
 * conmon failed, see podmanAttachFailure) is run once more in another fresh container; lost twice,
 * the engine is reported unavailable, so that the review is retried rather than a helper's
 * findings taken to be none.
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` when the output is lost twice, or as runOnce.
 */
export async function runInContainer(spec: SandboxSpec, context: RunContext): Promise<SandboxResult> {
  const first = await runOnce(spec, context);
  if (lostOutput(context, first) === null) return first;
  const second = await runOnce(spec, context);
  const lost = lostOutput(context, second);
  if (lost === null) return second;
  throw new AppError("SANDBOX_UNAVAILABLE", `${context.engine} lost the output of two runs of the helper in a row (${lost})`);
}

/** Podman's attach failure at the end of a run that was not cancelled, or null. */
function lostOutput(context: RunContext, result: SandboxResult): string | null {
  if (context.engine !== "podman" || result.cancelled) return null;
  return podmanAttachFailure(result.stderr);
}

/**
 * Runs `spec` in a fresh container: its mounts checked, its stdin staged as a file, the container
 * created as the run's uid, its writable mounts handed to that uid, then run attached. The
 * container is removed in the background after the result is known; with writable mounts, removed
 * and the mounts the worker's again before this resolves.
 */
async function runOnce(spec: SandboxSpec, context: RunContext): Promise<SandboxResult> {
  const startedAt = performance.now();
  // A closed engine's service is stopped: a run would only start it again, unsupervised.
  if (context.closed()) throw new AppError("SANDBOX_UNAVAILABLE", `the ${context.engine} engine is closed`);
  if (isAborted(spec.signal)) return cancelledResult(context.engine, true);
  await checkMounts(spec.mounts ?? [], context.stateDir);
  await context.service?.ensureRunning();
  const deadline = Date.now() + spec.limits.timeoutMs;
  const stdinDir = spec.stdin === undefined ? null : await mkdtemp(join(context.stateDir, "stdin-"));
  try {
    const stdinFile = stdinDir === null ? undefined : join(stdinDir, "stdin");
    if (stdinFile !== undefined && spec.stdin !== undefined) await writeFile(stdinFile, spec.stdin, { mode: 0o644 });
    const profile = { engine: context.engine, seccomp: context.seccomp, deadline, ...(stdinFile === undefined ? {} : { stdinFile }) };
    const writable = (spec.mounts ?? []).filter((mount) => mount.writable).map((mount) => mount.source);
    const { container, uid } = await createAsRunUid(context.uids, writable.length > 0, (user, name) => create(context, spec, { ...profile, user }, name));
    return await runCreated(container, uid, writable, spec, context, startedAt);
  } finally {
    if (stdinDir !== null) await rm(stdinDir, { recursive: true, force: true });
  }
}

async function runCreated(
  container: Dockerode.Container,
  uid: RunUid,
  writable: readonly string[],
  spec: SandboxSpec,
  context: RunContext,
  startedAt: number,
): Promise<SandboxResult> {
  context.inFlight.addContainer(container);
  const mounts = new WritableMounts(writable, uid, context.engine === "docker");
  try {
    await mounts.handOver();
    return await runAttached(container, spec, context, startedAt);
  } finally {
    const removal = context.inFlight.removeContainer(container);
    // A container that could not be removed may still hold processes of the uid: it is kept (the
    // lease until the worker exits; a daemon name until the container goes) for no other run.
    void removal.then((removed) => (removed ? uid.release() : undefined));
    if (writable.length > 0) {
      // The run's processes are gone with its container: what it wrote is the worker's again,
      // and an ordinary directory, before anything (the deps cache's rename) reads it.
      await removal;
      await mounts.takeBack();
    }
  }
}

async function create(context: RunContext, spec: SandboxSpec, profile: ContainerProfileOptions, name: string | undefined): Promise<Dockerode.Container> {
  try {
    return await context.docker.createContainer({ ...containerProfile(spec, profile), ...(name === undefined ? {} : { name }) });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const missing = /no such image|image not known|not found/i.test(reason);
    if (missing) throw new AppError("IMAGE_MISSING", `image ${spec.image} is not present on this host (build it with infra/images/build.sh)`, { cause: err });
    throw new AppError("SANDBOX_UNAVAILABLE", `${context.engine} could not create a container: ${reason}`, { cause: err });
  }
}
