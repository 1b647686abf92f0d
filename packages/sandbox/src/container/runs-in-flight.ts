import type Dockerode from "dockerode";

/**
 * An engine's runs in flight and their containers until removed: what closing the engine kills
 * and waits for before it stops the engine's service.
 */
export class RunsInFlight {
  readonly #runs = new Set<Promise<unknown>>();
  readonly #containers = new Set<Dockerode.Container>();
  readonly #removals = new Set<Promise<boolean>>();

  /** Holds `run` until it settles; returns it. */
  track<T>(run: Promise<T>): Promise<T> {
    this.#runs.add(run);
    void run.catch(() => undefined).finally(() => this.#runs.delete(run));
    return run;
  }

  /** A run's container, from its creation until `removeContainer`. */
  addContainer(container: Dockerode.Container): void {
    this.#containers.add(container);
  }

  // Settles (never rejects) once the container is gone (true) or could not be removed (false):
  // the janitor removes whatever could not be removed here.
  removeContainer(container: Dockerode.Container): Promise<boolean> {
    this.#containers.delete(container);
    const removal = container
      .remove({ force: true, v: true })
      .then(
        () => true,
        () => false,
      )
      .finally(() => this.#removals.delete(removal));
    this.#removals.add(removal);
    return removal;
  }

  /** Kills the runs' containers, then waits for the runs and for their containers' removals. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#containers].map((container) => killContainer(container)));
    // A killed run schedules its container's removal only once it has read the exit: wait for the
    // runs first, or their removals start after the engine's service is stopped (a container left).
    await Promise.allSettled([...this.#runs]);
    await Promise.allSettled([...this.#removals]);
  }
}

/** SIGKILLs the container; a failure (nothing running, the container gone) is ignored. */
export async function killContainer(container: Dockerode.Container): Promise<void> {
  await container.kill({ signal: "SIGKILL" }).catch(() => undefined);
}
