import { execFileSync, spawn } from "node:child_process";

/** Fixed identities and dates, so that fixture commits are reproducible and never read the machine's. */
const IDENTITY = {
  GIT_AUTHOR_NAME: "Fixture Author",
  GIT_AUTHOR_EMAIL: "author@fixture.invalid",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_NAME: "Fixture Committer",
  GIT_COMMITTER_EMAIL: "committer@fixture.invalid",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
} as const;

/**
 * The environment of every git the fixtures run: no global or system config, a HOME of our own, no
 * prompts. Only PATH is taken from the test process (Renovate's habit: `GIT_CONFIG_GLOBAL=/dev/null`).
 */
export function isolatedGitEnv(home: string, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: home,
    LC_ALL: "C",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    ...IDENTITY,
    ...extra,
  };
}

export interface GitCall {
  readonly input?: string | Buffer;
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs git synchronously with an argv array; returns stdout as bytes. Throws on a non-zero exit. */
export function gitBytes(home: string, cwd: string, args: readonly string[], call: GitCall = {}): Buffer {
  return execFileSync("git", args, {
    cwd,
    env: isolatedGitEnv(home, call.env),
    input: call.input,
    stdio: ["pipe", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Like {@link gitBytes}, with stdout decoded and its final newline removed. */
export function gitText(home: string, cwd: string, args: readonly string[], call: GitCall = {}): string {
  return gitBytes(home, cwd, args, call).toString("utf8").replace(/\n$/, "");
}

export interface AsyncGitResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs git without blocking the event loop: needed whenever git talks to a server that lives in
 * this same process (the HTTP git server, a TCP listener).
 */
export function gitAsync(home: string, cwd: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<AsyncGitResult> {
  const child = spawn("git", args, { cwd, env: isolatedGitEnv(home, env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode) => {
      resolve({ exitCode, stdout, stderr });
    });
  });
}
