import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A real api or worker process, started from its built `dist/main.js`, with its logs captured. */
export interface AppProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far (pino JSON lines). */
  logs(): string;
  /** Its JSON log lines so far, parsed. */
  records(): Record<string, unknown>[];
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Resolves with the first log line matching `pattern` (polls the captured output). */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and waits for the exit. Idempotent. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns `apps/<app>/dist/main.js` with exactly `env` (plus PATH/HOME), never the test's own
 * environment, so what the process knows is what the test gave it.
 */
export function startApp(app: "api" | "worker", name: string, env: Readonly<Record<string, string>>): AppProcess {
  const child = spawn(process.execPath, [`${ROOT}apps/${app}/dist/main.js`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return {
    name,
    child,
    logs: () => output,
    records: () => logRecords(output),
    exited,
    waitForLog: async (pattern, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = output.split("\n").find((candidate) => pattern.test(candidate));
        if (line !== undefined) return line;
        if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode} before logging ${pattern}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`${name} did not log ${pattern} in ${timeoutMs} ms:\n${output.slice(-4000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The JSON records among log lines (a line cut short by a kill is skipped). */
export function logRecords(text: string): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line cut by a kill: not a record.
    }
  }
  return records;
}
