import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** An api, worker or redis-server process of the benchmark's fleet. */
export interface FleetProcess {
  readonly child: ChildProcess;
  /** Resolves with the first stderr/stdout line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Current and peak resident set size from /proc, in MiB. */
  memory(): Promise<{ rssMiB: number; peakMiB: number }>;
  stop(): Promise<void>;
}

/** Starts `apps/<app>/dist/main.js` (or any command) with exactly `env` plus PATH and HOME. */
export function startProcess(command: readonly string[], env: Readonly<Record<string, string>>): FleetProcess {
  const [file = "", ...args] = command[0] === "api" || command[0] === "worker" ? [process.execPath, `${ROOT}apps/${command[0]}/dist/main.js`] : command;
  const child = spawn(file, args, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // Trimmed now and then, not per chunk: a copy of 200 kB per log line is CPU the measured api loses.
  const collect = (chunk: Buffer): void => {
    output += chunk.toString("utf8");
    if (output.length > 400_000) output = output.slice(-200_000);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  return {
    child,
    waitFor: async (pattern, timeoutMs = 120_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = output.split("\n").find((candidate) => pattern.test(candidate));
        if (line !== undefined) return line;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${command.join(" ")}: no ${String(pattern)}:\n${output.slice(-3000)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    memory: async () => {
      const status = await readFile(`/proc/${String(child.pid)}/status`, "utf8");
      const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? 0);
      return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A redis-server on 127.0.0.1:`port` as production runs it (append-only, no eviction), its files in `dir`. */
export function startRedis(dir: string, port: number): FleetProcess {
  return startProcess(
    [
      "redis-server",
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--dir",
      dir,
      "--maxmemory-policy",
      "noeviction",
    ],
    {},
  );
}
