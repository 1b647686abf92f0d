import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";

export interface ChildService {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. Idempotent. */
  stop(graceMs: number): Promise<void>;
}

/**
 * Starts one process of the fleet with exactly `env` (never the CLI's own environment: each app
 * reads its REVIEWBOT_* names strictly). Its output goes to `logFile`.
 */
export function startChildService(name: string, argv: readonly string[], env: Readonly<Record<string, string>>, logFile: string): ChildService {
  const log = createWriteStream(logFile, { flags: "a", mode: 0o600 });
  const [command = "", ...args] = argv;
  const child = spawn(command, args, { env: { ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = once(child, "exit").then(([code, signal]) => {
    log.end();
    return String(code ?? signal);
  });
  return {
    name,
    child,
    exited,
    async stop(graceMs) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
