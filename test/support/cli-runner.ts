import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** The built CLI (`pnpm turbo run build` first). */
export const CLI = fileURLToPath(new URL("../../apps/cli/dist/main.js", import.meta.url));

const execFileAsync = promisify(execFile);

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node apps/cli/dist/main.js ...args` with only PATH, HOME and `env`: nothing else of the
 * test process's environment (a stray REVIEWBOT_* would fail the strict config) reaches it.
 */
export async function runCli(args: readonly string[], env: Readonly<Record<string, string>>, timeoutMs = 120_000): Promise<CliResult> {
  const options = {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...env },
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    encoding: "utf8" as const,
  };
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], options);
    return { status: 0, stdout, stderr };
  } catch (err) {
    // A non-zero exit rejects with the exit status in `code` and the output alongside.
    const exited = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof exited.code !== "number") throw err;
    return { status: exited.code, stdout: exited.stdout ?? "", stderr: exited.stderr ?? "" };
  }
}
