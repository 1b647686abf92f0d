import { startApp, type AppProcess } from "./app-process.js";

/** A real worker process and the port of its health/metrics server. */
export interface WorkerProcess extends AppProcess {
  readonly port: number;
}

/**
 * Starts the built worker (`apps/worker/dist/main.js`) with only PATH, HOME and `env` (nothing of
 * the test process's environment, where a stray REVIEWBOT_* would fail the strict config), and
 * resolves once it logged "worker started" (the sandbox engine passed its probe and the queue is read).
 */
export async function startWorker(env: Readonly<Record<string, string>>, readyTimeoutMs = 120_000): Promise<WorkerProcess> {
  const worker = startApp("worker", "worker", { REVIEWBOT_WORKER_PORT: "0", REVIEWBOT_LOG_LEVEL: "info", ...env });
  try {
    const listening = JSON.parse(await worker.waitForLog(/"health server listening"/, readyTimeoutMs)) as { port: number };
    await worker.waitForLog(/"worker started"/, readyTimeoutMs);
    return { ...worker, port: listening.port };
  } catch (error) {
    await worker.stop("SIGKILL");
    throw error;
  }
}
