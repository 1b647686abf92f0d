import { describe, expect, it } from "vitest";
import { loadWorkerConfig } from "./worker-config.js";

const local = { REDIS_URL: "redis://127.0.0.1:6379", REVIEWBOT_SOURCE: "local", REVIEWBOT_LOCAL_REPOS_DIR: "/srv/repos" };
const github = { REDIS_URL: "redis://127.0.0.1:6379", REVIEWBOT_API_URL: "http://api:3000", REVIEWBOT_WORKER_CREDENTIAL: "x".repeat(32) };

describe("loadWorkerConfig", () => {
  it.each([
    ["an unknown REVIEWBOT_* name", { ...local, REVIEWBOT_CONCURENCY: "4" }, /^REVIEWBOT_CONCURENCY: /],
    ["no REDIS_URL", { REVIEWBOT_SOURCE: "local", REVIEWBOT_LOCAL_REPOS_DIR: "/srv" }, /^REDIS_URL: /],
    ["github without the broker", { REDIS_URL: "redis://r:6379" }, /^REVIEWBOT_API_URL: required when REVIEWBOT_SOURCE=github/],
    ["local without a directory", { REDIS_URL: "redis://r:6379", REVIEWBOT_SOURCE: "local" }, /^REVIEWBOT_LOCAL_REPOS_DIR: required/],
    ["a short credential", { ...github, REVIEWBOT_WORKER_CREDENTIAL: "short" }, /^REVIEWBOT_WORKER_CREDENTIAL: /],
    ["a zero concurrency", { ...local, REVIEWBOT_CONCURRENCY: "0" }, /^REVIEWBOT_CONCURRENCY: /],
    ["an unknown engine", { ...local, REVIEWBOT_ENGINE: "lxc" }, /^REVIEWBOT_ENGINE: /],
  ])("rejects %s", (_name, env, message) => {
    expect(() => loadWorkerConfig(env)).toThrow(message);
  });

  it.each([
    ["local", local, { REVIEWBOT_SOURCE: "local", REVIEWBOT_CONCURRENCY: 2, REVIEWBOT_LOCK_DURATION_MS: 60_000, REVIEWBOT_SHUTDOWN_GRACE_MS: 30_000, REVIEWBOT_WORKER_PORT: 9464 }],
    ["github", { ...github, PATH: "/bin", REVIEWBOT_CONCURRENCY: "4" }, { REVIEWBOT_SOURCE: "github", REVIEWBOT_GIT_URL: "https://github.com", REVIEWBOT_CONCURRENCY: 4 }],
  ])("reads %s with defaults and ignores other names", (_name, env, expected) => {
    const config = loadWorkerConfig(env);
    expect(config).toMatchObject(expected);
    expect(config).not.toHaveProperty("PATH");
  });
});
