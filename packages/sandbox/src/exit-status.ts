import { constants } from "node:os";

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * Splits a container's exit code into an exit code or a signal: engines report a process killed by
 * signal N as 128 + N (the init process relays it). A helper that deliberately exits with such a
 * code is indistinguishable, and is reported as the signal.
 */
export function exitStatus(code: number): { exitCode: number | null; signal: string | null } {
  const signal = code > 128 ? SIGNAL_NAMES.get(code - 128) : undefined;
  return signal === undefined ? { exitCode: code, signal: null } : { exitCode: null, signal };
}
