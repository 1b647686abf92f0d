import { HostUidPool, type HostUidRange } from "@reviewbot/sandbox/host-uid-pool";

let shared: Promise<HostUidPool> | undefined;

/** The uid pool a root worker's engines get by default (`REVIEWBOT_SANDBOX_UIDS` unset), one per test process. */
export function sandboxUidPool(): Promise<HostUidPool> {
  shared ??= HostUidPool.create();
  return shared;
}

/** True when `uid` is one of `range`'s. */
export function inRange(range: HostUidRange, uid: number): boolean {
  return uid >= range.first && uid < range.first + range.count;
}
