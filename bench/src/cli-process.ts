import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** The built CLI (`pnpm turbo run build` first). */
export const CLI = fileURLToPath(new URL("../../apps/cli/dist/main.js", import.meta.url));

export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** The CLI process's own peak RSS (VmHWM), in KiB; sandboxes and git are not counted. */
  readonly peakRssKiB: number;
}

/**
 * Runs the CLI with `args` and `env` (plus PATH and HOME), timing it and polling VmHWM from
 * /proc/<pid>/status: a high-water mark, so polling only has to read it before the process exits.
 */
export function runCli(args: readonly string[], env: Readonly<Record<string, string>>): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let peakRssKiB = 0;
  const poll = setInterval(() => {
    void readFile(`/proc/${String(child.pid)}/status`, "utf8").then(
      (status) => {
        peakRssKiB = Math.max(peakRssKiB, Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0));
      },
      () => undefined,
    );
  }, 20);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.on("error", (err) => {
      clearInterval(poll);
      reject(err);
    });
    child.on("close", (status) => {
      clearInterval(poll);
      const wallMs = performance.now() - started;
      resolve({ status, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), wallMs, peakRssKiB });
    });
  });
}
