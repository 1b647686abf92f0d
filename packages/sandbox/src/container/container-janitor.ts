import type Dockerode from "dockerode";
import { LABELS } from "./container-profile.js";

/** How long past its deadline a container may linger before the janitor removes it. */
export const JANITOR_GRACE_MS = 60_000;

/**
 * Removes containers carrying our label whose deadline (plus a grace period) has passed: they
 * belong to a run that crashed or whose removal failed. Safe across worker processes sharing an
 * engine, since a live run is always before its deadline. Returns the ids removed.
 */
export async function reapExpiredContainers(docker: Dockerode, now = Date.now()): Promise<string[]> {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] } });
  const expired = containers.filter((info) => {
    const deadline = Number(info.Labels[LABELS.deadline]);
    return !Number.isFinite(deadline) || deadline + JANITOR_GRACE_MS < now;
  });
  const removed = await Promise.allSettled(
    expired.map(async (info) => {
      await docker.getContainer(info.Id).remove({ force: true, v: true });
      return info.Id;
    }),
  );
  return removed.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
}
