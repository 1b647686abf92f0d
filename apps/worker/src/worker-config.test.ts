import { describe, expect, it } from "vitest";
import { loadWorkerConfig } from "./worker-config.js";

const api = { REVIEWBOT_API_URL: "http://api:3000", REVIEWBOT_WORKER_CREDENTIAL: `worker-1.${"x".repeat(43)}` };
const local = { REDIS_URL: "redis://127.0.0.1:6379", REVIEWBOT_SOURCE: "local", REVIEWBOT_LOCAL_REPOS_DIR: "/srv/repos", ...api };
const github = { REDIS_URL: "redis://127.0.0.1:6379", ...api };

describe("loadWorkerConfig", () => {
  it.each([
    ["an unknown REVIEWBOT_* name", { ...local, REVIEWBOT_CONCURENCY: "4" }, /^REVIEWBOT_CONCURENCY: /],
    ["no REDIS_URL", { REVIEWBOT_SOURCE: "local", REVIEWBOT_LOCAL_REPOS_DIR: "/srv", ...api }, /^REDIS_URL: /],
    ["a key prefix with a space", { ...local, REVIEWBOT_REDIS_PREFIX: "{rb} x" }, /^REVIEWBOT_REDIS_PREFIX: /],
    ["no api to claim jobs from", { REDIS_URL: "redis://r:6379", REVIEWBOT_SOURCE: "local", REVIEWBOT_LOCAL_REPOS_DIR: "/srv" }, /^REVIEWBOT_API_URL: /],
    ["local without a directory", { REDIS_URL: "redis://r:6379", REVIEWBOT_SOURCE: "local", ...api }, /^REVIEWBOT_LOCAL_REPOS_DIR: is required/],
    ["a credential without a name", { ...github, REVIEWBOT_WORKER_CREDENTIAL: "x".repeat(43) }, /^REVIEWBOT_WORKER_CREDENTIAL: must be <name>.<secret>/],
    ["a credential with a short secret", { ...github, REVIEWBOT_WORKER_CREDENTIAL: "w1.short" }, /^REVIEWBOT_WORKER_CREDENTIAL: /],
    ["a zero concurrency", { ...local, REVIEWBOT_CONCURRENCY: "0" }, /^REVIEWBOT_CONCURRENCY: /],
    ["an unknown engine", { ...local, REVIEWBOT_ENGINE: "lxc" }, /^REVIEWBOT_ENGINE: /],
    ["a review deadline under 5 s", { ...local, REVIEWBOT_REVIEW_DEADLINE_MS: "4999" }, /^REVIEWBOT_REVIEW_DEADLINE_MS: /],
    ["a review deadline past a day", { ...local, REVIEWBOT_REVIEW_DEADLINE_MS: "86400001" }, /^REVIEWBOT_REVIEW_DEADLINE_MS: /],
    ["a review deadline that is not a number", { ...local, REVIEWBOT_REVIEW_DEADLINE_MS: "20m" }, /^REVIEWBOT_REVIEW_DEADLINE_MS: /],
  ])("rejects %s", (_name, env, message) => {
    expect(() => loadWorkerConfig(env)).toThrow(message);
  });

  it.each([
    [
      "local",
      local,
      {
        source: { kind: "local", reposDir: "/srv/repos" },
        REVIEWBOT_CONCURRENCY: 2,
        REVIEWBOT_LOCK_DURATION_MS: 60_000,
        REVIEWBOT_SHUTDOWN_GRACE_MS: 30_000,
        REVIEWBOT_WORKER_PORT: 9464,
        REVIEWBOT_REVIEW_DEADLINE_MS: 1_200_000,
      },
    ],
    ["github", { ...github, PATH: "/bin", REVIEWBOT_CONCURRENCY: "4" }, { source: { kind: "github", gitUrl: "https://github.com" }, REVIEWBOT_CONCURRENCY: 4 }],
    ["a shorter review deadline", { ...github, REVIEWBOT_REVIEW_DEADLINE_MS: "300000" }, { REVIEWBOT_REVIEW_DEADLINE_MS: 300_000 }],
  ])("reads %s with defaults and ignores other names", (_name, env, expected) => {
    const config = loadWorkerConfig(env);
    expect(config).toMatchObject(expected);
    expect(config).not.toHaveProperty("PATH");
  });
});
