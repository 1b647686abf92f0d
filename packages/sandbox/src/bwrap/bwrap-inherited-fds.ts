import { closeSync, readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;
const FIRST_EXTRA_FD = 3;

/**
 * Closes the descriptors this process inherited without close-on-exec (a parent's pipe, a log
 * file opened by a service manager): every child would inherit them, bwrap passes them into the
 * sandbox, and a descriptor opened by root gives access no permission check repeats. Node and
 * libuv open all their own descriptors with O_CLOEXEC, so none of them is touched.
 *
 * @returns the descriptors closed, for the caller to log.
 */
export function closeInheritedFds(): number[] {
  const fdinfoDir = "/proc/self/fdinfo";
  const closed: number[] = [];
  for (const name of readdirSync(fdinfoDir)) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < FIRST_EXTRA_FD) continue;
    let info: string;
    try {
      info = readFileSync(`${fdinfoDir}/${name}`, "utf8");
    } catch {
      continue; // the directory handle of readdir itself, already closed
    }
    const flags = /^flags:\s+([0-7]+)$/m.exec(info)?.[1];
    if (flags === undefined || (parseInt(flags, 8) & O_CLOEXEC) !== 0) continue;
    closeSync(fd);
    closed.push(fd);
  }
  return closed;
}
