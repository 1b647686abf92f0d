import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "./local-redis.js";

/** A real Prometheus (Debian's package), its HTTP API on 127.0.0.1. */
export interface PrometheusServer {
  readonly url: string;
  /** GETs `/api/v1/<path>` and returns its `data`. */
  api<T>(path: string): Promise<T>;
  logs(): string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** Scrape jobs: name → `host:port` targets. */
  readonly jobs: Readonly<Record<string, readonly string[]>>;
  /** Rule file contents, written next to the configuration. */
  readonly rules: string;
  /** Scrape and evaluation interval, e.g. `1s`. */
  readonly interval: string;
}

/** Starts `prometheus` in `dir` with one rule file and the given static jobs; resolves once it is ready. */
export async function startPrometheus(dir: string, options: PrometheusOptions): Promise<PrometheusServer> {
  await mkdir(join(dir, "data"), { recursive: true });
  await writeFile(join(dir, "rules.yml"), options.rules);
  const jobs = Object.entries(options.jobs).map(
    ([name, targets]) => `  - job_name: ${name}\n    static_configs:\n      - targets: [${targets.map((target) => JSON.stringify(target)).join(", ")}]\n`,
  );
  const config = `global:\n  scrape_interval: ${options.interval}\n  evaluation_interval: ${options.interval}\nrule_files: [rules.yml]\nscrape_configs:\n${jobs.join("")}`;
  await writeFile(join(dir, "prometheus.yml"), config);
  const port = await freePort();
  const child = spawn(
    "prometheus",
    [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = once(child, "exit");
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (!output.includes("Server is ready to receive web requests")) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`prometheus not ready in 30 s:\n${output.slice(-4000)}`);
    await sleep(50);
  }
  return {
    url,
    async api<T>(path: string): Promise<T> {
      const response = await fetch(`${url}/api/v1/${path}`);
      const body = (await response.json()) as { status: string; data: T; error?: string };
      if (body.status !== "success") throw new Error(`prometheus ${path}: ${body.error ?? response.status}`);
      return body.data;
    },
    logs: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
