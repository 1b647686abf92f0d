import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/** The built worker (`pnpm --filter @reviewbot/worker... build` first). */
export const WORKER = fileURLToPath(new URL("../../apps/worker/dist/main.js", import.meta.url));

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** The health/metrics port the worker listens on. */
  readonly port: number;
  /** Every JSON log line so far. */
  readonly logs: Record<string, unknown>[];
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGKILL unless it already exited. */
  kill(): Promise<void>;
}

/**
 * Starts `node apps/worker/dist/main.js` with only PATH, HOME and `env` (nothing of the test
 * process's environment, where a stray REVIEWBOT_* would fail the strict config), and resolves
 * once it logged "worker started" (the sandbox engine passed its probe and the queue is read).
 */
export async function startWorker(env: Readonly<Record<string, string>>, readyTimeoutMs = 120_000): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [WORKER], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", REVIEWBOT_WORKER_PORT: "0", REVIEWBOT_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const logs: Record<string, unknown>[] = [];
  let stderr = "";
  let port = 0;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the worker did not start: ${stderr.slice(-2000)}`));
    }, readyTimeoutMs);
    let pending = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const entry = parseLine(line);
        if (entry === null) continue;
        logs.push(entry);
        if (entry.msg === "health server listening" && typeof entry.port === "number") port = entry.port;
        if (entry.msg === "worker started") {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited with ${String(code)}: ${stderr.slice(-2000)}`));
    });
  });
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  };
  await ready.catch(async (err: unknown) => {
    await kill();
    throw err;
  });
  return { child, port, logs, exited, kill };
}

function parseLine(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
