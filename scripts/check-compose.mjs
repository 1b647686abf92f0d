#!/usr/bin/env node
// Structural rules for docker-compose.yml, checked on the normalised JSON that
// scripts/validate-compose.sh produces (`docker-compose config`, anchors merged, env files inlined):
//   node scripts/check-compose.mjs <config.json>
// Prints one line per violation and exits 1 when there is any. The rules are the deployment's
// promises (docs/deployment.md): hardened services, a Redis BullMQ can trust, a scalable worker
// that holds no App secret, secrets only as files.
import { readFileSync } from "node:fs";

const SECRET_NAME = /(SECRET|PASSWORD|PRIVATE_KEY|CREDENTIAL|TOKEN|API_KEY)$/;
const API_ONLY_SECRETS = ["github_app_private_key", "webhook_secret", "dashboard_password", "workers", "redis_api_password"];

const path = process.argv[2];
if (path === undefined) {
  console.error("usage: check-compose.mjs <normalised compose config as JSON>");
  process.exit(2);
}
const config = JSON.parse(readFileSync(path, "utf8"));
const services = config.services ?? {};
const problems = [];
const fail = (where, message) => problems.push(`${where}: ${message}`);

/** Compose durations ("45s", "1m30s", "500ms") in milliseconds; NaN when unreadable. */
function durationMs(value) {
  if (typeof value !== "string") return Number.NaN;
  const units = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  let total = 0;
  let rest = value;
  for (const match of value.matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g)) {
    total += Number(match[1]) * units[match[2]];
    rest = rest.replace(match[0], "");
  }
  return rest === "" && value !== "" ? total : Number.NaN;
}

for (const name of ["redis", "api", "worker"]) {
  if (services[name] === undefined) fail(name, "service is missing");
}

for (const [name, service] of Object.entries(services)) {
  const where = `services.${name}`;
  const healthcheck = service.healthcheck;
  if (healthcheck === undefined || healthcheck.disable === true || !Array.isArray(healthcheck.test) || healthcheck.test[0] === "NONE") {
    fail(where, "has no healthcheck");
  }
  if (service.read_only !== true) fail(where, "root filesystem is not read_only");
  if (!(service.cap_drop ?? []).includes("ALL")) fail(where, "does not cap_drop ALL");
  if ((service.cap_add ?? []).length > 0) fail(where, `adds capabilities ${service.cap_add.join(", ")}`);
  if (!(service.security_opt ?? []).some((opt) => /^no-new-privileges(:true)?$/.test(opt))) fail(where, "lacks no-new-privileges");
  if (service.privileged === true) fail(where, "is privileged");
  if (service.mem_limit === undefined) fail(where, "has no mem_limit");
  if (service.pids_limit === undefined) fail(where, "has no pids_limit");
  if (typeof service.image !== "string" || !service.image.startsWith("localhost/")) {
    fail(where, `image ${String(service.image)} is not a locally built localhost/ image`);
  }
  const environment = service.environment ?? {};
  const secrets = (service.secrets ?? []).map((entry) => (typeof entry === "string" ? entry : entry.source));
  for (const [key, value] of Object.entries(environment)) {
    if (SECRET_NAME.test(key)) fail(where, `secret ${key} is set in the environment; use a secret file and ${key}_FILE`);
    if (key.endsWith("_FILE") && typeof value === "string" && value.startsWith("/run/secrets/")) {
      const secret = value.slice("/run/secrets/".length);
      if (!secrets.includes(secret)) fail(where, `${key} names /run/secrets/${secret}, which is not among its secrets`);
    }
  }
}

const redis = services.redis;
if (redis !== undefined) {
  const command = Array.isArray(redis.command) ? redis.command.join(" ") : String(redis.command ?? "");
  if (!/--appendonly\s+yes\b/.test(command)) fail("services.redis", "does not run with --appendonly yes");
  if (!/--maxmemory-policy\s+noeviction\b/.test(command)) fail("services.redis", "does not run with --maxmemory-policy noeviction");
  if (!(redis.volumes ?? []).some((volume) => String(volume).split(":")[1] === "/data")) fail("services.redis", "has no volume at /data");
  if ((redis.ports ?? []).length > 0) fail("services.redis", "publishes ports");
  if (!/--aclfile\s+\S+/.test(command)) fail("services.redis", "runs without --aclfile (one ACL user per role)");
}

const worker = services.worker;
if (worker !== undefined) {
  if ((worker.ports ?? []).length > 0) fail("services.worker", "publishes ports (it must scale with --scale worker=N)");
  if (worker.container_name !== undefined) fail("services.worker", "has a container_name (it must scale with --scale worker=N)");
  const environment = worker.environment ?? {};
  if (environment.REVIEWBOT_ENGINE !== "podman") fail("services.worker", "REVIEWBOT_ENGINE is not podman");
  const socket = environment.REVIEWBOT_PODMAN_SOCKET;
  if (typeof socket !== "string" || !(worker.volumes ?? []).some((volume) => String(volume).split(":")[1] === socket)) {
    fail("services.worker", "REVIEWBOT_PODMAN_SOCKET is not a mounted socket");
  }
  const cache = environment.REVIEWBOT_CACHE_DIR;
  if (typeof cache !== "string" || !(worker.volumes ?? []).some((volume) => String(volume).split(":")[1] === cache)) {
    fail("services.worker", "REVIEWBOT_CACHE_DIR is not a mounted volume");
  }
  const secrets = (worker.secrets ?? []).map((entry) => (typeof entry === "string" ? entry : entry.source));
  for (const secret of API_ONLY_SECRETS) {
    if (secrets.includes(secret)) fail("services.worker", `holds ${secret}, which only the api may hold`);
  }
  if (!/^rediss?:\/\/reviewbot-worker@/.test(String(environment.REDIS_URL ?? "")))
    fail("services.worker", "does not connect to Redis as the reviewbot-worker user");
  const graceMs = Number(environment.REVIEWBOT_SHUTDOWN_GRACE_MS ?? 30_000);
  const stopMs = durationMs(worker.stop_grace_period ?? "10s");
  if (!(stopMs > graceMs))
    fail("services.worker", `stop_grace_period ${String(worker.stop_grace_period)} is not longer than REVIEWBOT_SHUTDOWN_GRACE_MS=${graceMs}`);
}

for (const problem of problems) console.log(problem);
if (problems.length > 0) process.exit(1);
console.log(`compose structure: ${Object.keys(services).length} services ok`);
