import { once } from "node:events";
import { Writable, type Duplex } from "node:stream";
import type Dockerode from "dockerode";
import { cancelledResult, isAborted } from "../cancelled-result.js";
import { exitStatus } from "../exit-status.js";
import { killContainer } from "./runs-in-flight.js";
import { OomWatch } from "./oom-watch.js";
import { OutputBudget } from "../output-budget.js";
import type { SandboxResult, SandboxSpec } from "../sandbox-spec.js";
import type { ContainerEngineName } from "@reviewbot/core/engine-names";

/** What a run of a created container needs of its engine. */
export interface AttachContext {
  readonly engine: ContainerEngineName;
  readonly docker: Dockerode;
  /** Where a container's memory cgroup lives on the host, when the engine's layout is known. */
  readonly memoryCgroupDir: ((containerId: string) => string) | undefined;
  /** True once the engine is closed: a container is then not started, or killed once started. */
  closed(): boolean;
}

/**
 * Starts a created container with its output streams attached (their end marks its exit) and
 * collects its result. The container is killed at the spec's deadline, once its output budget is
 * spent, or when its signal aborts.
 */
export async function runAttached(container: Dockerode.Container, spec: SandboxSpec, context: AttachContext, startedAt: number): Promise<SandboxResult> {
  // Creating takes tens of milliseconds: an abort or a close meanwhile must not start the container.
  if (isAborted(spec.signal) || context.closed()) return cancelledResult(context.engine, true, elapsedMs(startedAt));
  // Set by callbacks while the run awaits (an object, so that no read is narrowed to `false`).
  const how = { timedOut: false, cancelled: false, killedByUs: false };
  const stop = (): void => {
    how.killedByUs = true;
    void killContainer(container);
  };
  const cancel = (): void => {
    how.cancelled = true;
    stop();
  };
  const budget = new OutputBudget(spec.limits.outputBytes, stop);
  const stream = (await container.attach({ stream: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex;
  // Checked and subscribed in one synchronous step: no abort can fall between the two.
  if (isAborted(spec.signal)) {
    stream.destroy();
    return cancelledResult(context.engine, true, elapsedMs(startedAt));
  }
  spec.signal?.addEventListener("abort", cancel, { once: true });
  const ended = Promise.race([once(stream, "end"), once(stream, "close")]);
  const stdout = sink((chunk) => {
    budget.stdout(chunk);
  });
  const stderr = sink((chunk) => {
    budget.stderr(chunk);
  });
  context.docker.modem.demuxStream(stream, stdout, stderr);
  const timer = setTimeout(() => {
    how.timedOut = true;
    stop();
  }, spec.limits.timeoutMs);
  let oomWatch: OomWatch | undefined;
  try {
    await container.start();
    // A deadline, an abort or a close while the start was in flight found nothing running to kill.
    if (how.killedByUs || context.closed()) await killContainer(container);
    if (context.memoryCgroupDir !== undefined) oomWatch = new OomWatch(context.memoryCgroupDir(container.id));
    await ended;
  } finally {
    spec.signal?.removeEventListener("abort", cancel);
    clearTimeout(timer);
    stream.destroy();
  }
  const oomSeen = (await oomWatch?.stop()) ?? false;
  const state = await finalState(container);
  const output = budget.collected();
  const status = exitStatus(state.ExitCode);
  return {
    engine: context.engine,
    sandboxed: true,
    ...status,
    timedOut: how.timedOut,
    cancelled: how.cancelled,
    // Podman 4 on cgroup v1 never sets OOMKilled: the cgroup's own counter is read while the
    // container runs. Where it cannot be, note that inside a sandbox the only senders of SIGKILL
    // are the kernel's OOM killer, us, and the process itself (which can only fake its own
    // failure), so a SIGKILL we did not send is reported as an OOM kill.
    oomKilled: oomSeen || state.OOMKilled || (status.signal === "SIGKILL" && !how.killedByUs),
    outputTruncated: budget.truncated,
    stdout: output.stdout,
    stderr: output.stderr,
    durationMs: elapsedMs(startedAt),
  };
}

async function finalState(container: Dockerode.Container): Promise<{ ExitCode: number; OOMKilled: boolean }> {
  let info = await container.inspect();
  // The streams can close a moment before the engine records the exit.
  if (info.State.Running) {
    await container.wait();
    info = await container.inspect();
  }
  return info.State;
}

function elapsedMs(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

function sink(onChunk: (chunk: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      onChunk(chunk);
      callback();
    },
  });
}
