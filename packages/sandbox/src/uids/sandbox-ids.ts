/**
 * The numeric user a helper runs as inside its sandbox when it has no host uid of its own (a
 * worker that is not root, or bwrap's user namespace): the helper images create this user. A root
 * worker gives each run its own host uid instead (`HostUidPool`).
 */
export const SANDBOX_IDS = { uid: 10001, gid: 10001 } as const;
