import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** What a child process does once its checkout is done. */
export type AfterCheckout = "release" | "exit-without-release" | "wait-to-be-killed";

export interface ChildCheckoutOptions {
  readonly root: string;
  readonly remote: string;
  readonly after: AfterCheckout;
}

export interface ChildCheckoutReport {
  readonly id: string;
  readonly dir: string;
  readonly headSha: string;
  readonly files: readonly string[];
}

export interface ChildCheckout {
  readonly child: ChildProcess;
  /** Resolves with the child's report as soon as its checkout is done (before any release). */
  readonly report: Promise<ChildCheckoutReport>;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

// A separate worker process using the same cache root, as a second worker on the host would.
// ESM passed to `node --input-type=module --eval`; data arrives as argv, never spliced into code.
const SCRIPT = `
import { readdirSync } from "node:fs";
const [moduleUrl, json] = process.argv.slice(1);
const options = JSON.parse(json);
const { CloneCache } = await import(moduleUrl);
const cache = new CloneCache({
  root: options.root, allowedProtocols: ["file"], gitTimeoutMs: 30000, lockWaitMs: 30000,
  limits: { maxFiles: 100000, maxTotalBytes: 1e9, maxPathDepth: 64, maxPathBytes: 4096 },
});
await cache.init();
const co = await cache.checkout({ remote: options.remote, head: { ref: "fork" }, base: { ref: "main" }, label: "child" });
const files = readdirSync(co.dir, { recursive: true }).map(String).sort();
process.stdout.write(JSON.stringify({ id: co.id, dir: co.dir, headSha: co.headSha, files }) + "\\n");
if (options.after === "release") await co.release();
else if (options.after === "exit-without-release") process.exit(0);
else setInterval(() => undefined, 1000);
`;

/** Starts `node` running one checkout against `options.root`. */
export function spawnCheckoutChild(options: ChildCheckoutOptions): ChildCheckout {
  const moduleUrl = pathToFileURL(createRequire(import.meta.url).resolve("@reviewbot/overlay/clone-cache")).href;
  const child = spawn(process.execPath, ["--input-type=module", "--eval", SCRIPT, moduleUrl, JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const report = new Promise<ChildCheckoutReport>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const newline = stdout.indexOf("\n");
      if (newline !== -1) resolve(JSON.parse(stdout.slice(0, newline)) as ChildCheckoutReport);
    });
    child.on("close", (code) => {
      reject(new Error(`checkout child exited (${String(code)}) without a report: ${stderr}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, report, exited };
}
