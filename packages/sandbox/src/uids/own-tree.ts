import { lchown, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Gives `dir` (and, unless `topOnly`, everything under it) to `owner`: a writable mount becomes the
 * run's before it starts, and the worker's again once the run's processes are gone. Symlinks are
 * changed themselves and never followed (Node's recursive `readdir` follows a link to a directory,
 * which would hand the worker host paths a run linked to).
 */
export async function ownTree(dir: string, owner: { readonly uid: number; readonly gid: number }, options: { readonly topOnly?: boolean } = {}): Promise<void> {
  await lchown(dir, owner.uid, owner.gid);
  if (options.topOnly === true) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await ownTree(path, owner);
    else await lchown(path, owner.uid, owner.gid);
  }
}
