import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../support/temp-dirs.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCRIPT = join(ROOT, "scripts", "validate-compose.sh");
const COMPOSE = join(ROOT, "docker-compose.yml");

interface Service {
  readonly image?: string;
  readonly command?: readonly string[];
  readonly ports?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly secrets?: readonly { readonly source: string }[];
  readonly healthcheck?: { readonly test?: readonly string[]; readonly disable?: boolean };
  readonly read_only?: boolean;
  readonly cap_drop?: readonly string[];
  readonly security_opt?: readonly string[];
  readonly volumes?: readonly string[];
  readonly networks?: Readonly<Record<string, unknown>>;
}
interface ComposeConfig {
  readonly services: Readonly<Record<string, Service>>;
  readonly networks: Readonly<Record<string, { readonly internal?: boolean }>>;
}

function validate(file: string, jsonOut?: string): { status: number | null; output: string } {
  const args = jsonOut === undefined ? [SCRIPT, file] : [SCRIPT, file, "--json", jsonOut];
  const result = spawnSync("bash", args, { encoding: "utf8", timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("docker-compose.yml", () => {
  const tempDir = useTempDirs();
  let config: ComposeConfig;

  // The shipped file, normalised by docker-compose (anchors merged, env files inlined).
  beforeAll(async () => {
    const out = join(await tempDir("compose"), "config.json");
    const { status, output } = validate(COMPOSE, out);
    expect(output).toContain("validate-compose: docker-compose.yml ok");
    expect(status).toBe(0);
    config = JSON.parse(await readFile(out, "utf8")) as ComposeConfig;
  });

  it("runs Redis for BullMQ: AOF every second, noeviction, a volume, internal network only", () => {
    const redis = config.services.redis;
    expect(redis?.command?.join(" ")).toMatch(/--appendonly yes --appendfsync everysec --maxmemory-policy noeviction/);
    expect(redis?.volumes).toContainEqual(expect.stringMatching(/^redis-data:\/data/));
    expect(redis?.ports).toBeUndefined();
    expect(Object.keys(redis?.networks ?? {})).toEqual(["backend"]);
    expect(config.networks.backend?.internal).toBe(true);
  });

  it("has a scalable worker: no published port, the host's Podman socket, the cache at one path", () => {
    const worker = config.services.worker;
    expect(worker?.ports).toBeUndefined();
    expect(worker?.environment).toMatchObject({
      REVIEWBOT_ENGINE: "podman",
      REVIEWBOT_PODMAN_SOCKET: "/run/reviewbot/engine.sock",
      REVIEWBOT_SANDBOX: "require",
    });
    expect(worker?.volumes).toContain("/run/user/1000/podman/podman.sock:/run/reviewbot/engine.sock:rw");
    const cache = worker?.environment?.REVIEWBOT_CACHE_DIR ?? "";
    expect(worker?.volumes).toContain(`worker-cache:${cache}:rw`);
  });

  it.each(["redis", "api", "worker"])("hardens %s and gives it a healthcheck", (name) => {
    const service = config.services[name];
    expect(service?.healthcheck?.test?.length).toBeGreaterThan(1);
    expect(service?.read_only).toBe(true);
    expect(service?.cap_drop).toEqual(["ALL"]);
    expect(service?.security_opt).toContain("no-new-privileges:true");
    expect(service?.image).toMatch(/^localhost\/reviewbot\//);
  });

  it("passes secrets as files: the api holds the App's, the worker only its credential and its Redis password", () => {
    const names = (service: Service | undefined): string[] => (service?.secrets ?? []).map((secret) => secret.source).sort();
    expect(names(config.services.api)).toEqual(["dashboard_password", "github_app_private_key", "redis_api_password", "webhook_secret", "workers"]);
    expect(names(config.services.worker)).toEqual(["redis_worker_password", "worker_credential"]);
    expect(names(config.services.redis)).toEqual(["redis_users_acl"]);
    expect(config.services.api?.environment?.REDIS_URL).toBe("redis://reviewbot-api@redis:6379");
    expect(config.services.worker?.environment?.REDIS_URL).toBe("redis://reviewbot-worker@redis:6379");
    for (const service of Object.values(config.services)) {
      const secretLike = Object.keys(service.environment ?? {}).filter((key) => /(SECRET|PASSWORD|PRIVATE_KEY|CREDENTIAL|TOKEN)$/.test(key));
      expect(secretLike).toEqual([]);
    }
    expect(config.services.api?.environment).toMatchObject({
      GITHUB_PRIVATE_KEY_FILE: "/run/secrets/github_app_private_key",
      REVIEWBOT_WEBHOOK_SECRET_FILE: "/run/secrets/webhook_secret",
      REVIEWBOT_DASHBOARD_PASSWORD_FILE: "/run/secrets/dashboard_password",
      REVIEWBOT_WORKERS_FILE: "/run/secrets/workers",
    });
  });

  // Each row breaks one promise of the file; the validator must refuse it and say why.
  it.each([
    ["a worker port", '    expose: ["9464"]', '    ports: ["9464:9464"]', "services.worker: publishes ports"],
    ["an evicting Redis", "      - noeviction", "      - allkeys-lru", "noeviction"],
    ["Redis without AOF", '      - --appendonly\n      - "yes"', '      - --appendonly\n      - "no"', "--appendonly yes"],
    [
      "no healthcheck",
      '    healthcheck:\n      # Without a user Redis answers NOAUTH: enough to know it serves, and no password in the probe.\n      test: ["CMD-SHELL", "redis-cli ping 2>&1 | grep -qE \'PONG|NOAUTH\'"]\n      interval: 10s\n      timeout: 3s\n      retries: 5\n      start_period: 5s\n',
      "",
      "services.redis: has no healthcheck",
    ],
    [
      "a secret in the environment",
      '      REVIEWBOT_PORT: "3000"',
      '      REVIEWBOT_PORT: "3000"\n      REVIEWBOT_WEBHOOK_SECRET: hunter2',
      "REVIEWBOT_WEBHOOK_SECRET is set in the environment",
    ],
    [
      "the App key on a worker",
      "    secrets:\n      - worker_credential\n      - redis_worker_password\n    # The uid",
      "    secrets:\n      - worker_credential\n      - redis_worker_password\n      - github_app_private_key\n    # The uid",
      "holds github_app_private_key",
    ],
    [
      "the api's Redis password on a worker",
      "    secrets:\n      - worker_credential\n      - redis_worker_password\n    # The uid",
      "    secrets:\n      - worker_credential\n      - redis_api_password\n    # The uid",
      "holds redis_api_password",
    ],
    [
      "a worker connecting as the api",
      "      REDIS_URL: redis://reviewbot-worker@redis:6379",
      "      REDIS_URL: redis://reviewbot-api@redis:6379",
      "does not connect to Redis as the reviewbot-worker user",
    ],
    ["Redis without ACL users", "      - --aclfile\n      - /run/secrets/redis_users_acl\n", "", "runs without --aclfile"],
    ["a writable root", "  read_only: true", "  read_only: false", "services.api: root filesystem is not read_only"],
    ["a short stop grace", "    stop_grace_period: 45s", "    stop_grace_period: 20s", "is not longer than REVIEWBOT_SHUTDOWN_GRACE_MS"],
    ["a registry image", "    image: localhost/reviewbot/redis:latest", "    image: docker.io/library/redis:7", "is not a locally built"],
    ["an unknown key", "    pids_limit: 64", "    pids_limit: 64\n    bogus_option: 1", "docker-compose config failed"],
  ])("refuses %s", async (_label, from, to, message) => {
    const original = await readFile(COMPOSE, "utf8");
    expect(original).toContain(from);
    const file = join(await tempDir("compose"), "docker-compose.yml");
    await writeFile(file, original.replace(from, to));
    const { status, output } = validate(file);
    expect(output).toContain(message);
    expect(status).toBe(1);
  });
});
