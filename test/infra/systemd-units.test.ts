import { spawnSync } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../support/temp-dirs.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const UNITS = join(ROOT, "infra", "systemd");
const SCRIPT = join(ROOT, "scripts", "validate-units.sh");

/** The [Service] section of a unit file: directive → every value it is given, in order. */
async function serviceSection(unit: string): Promise<Map<string, string[]>> {
  const directives = new Map<string, string[]>();
  let section = "";
  for (const raw of (await readFile(join(UNITS, unit), "utf8")).split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header !== null) {
      section = header[1] ?? "";
      continue;
    }
    const eq = line.indexOf("=");
    if (section !== "Service" || eq < 0) continue;
    const key = line.slice(0, eq);
    directives.set(key, [...(directives.get(key) ?? []), line.slice(eq + 1)]);
  }
  return directives;
}

function validateUnits(dir?: string): { status: number | null; output: string } {
  const result = spawnSync("bash", dir === undefined ? [SCRIPT] : [SCRIPT, dir], { encoding: "utf8", timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const HARDENING: [string, string][] = [
  ["NoNewPrivileges", "yes"],
  ["ProtectSystem", "strict"],
  ["ProtectHome", "yes"],
  ["PrivateTmp", "yes"],
  ["PrivateDevices", "yes"],
  ["CapabilityBoundingSet", ""],
  ["RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"],
  ["RestrictSUIDSGID", "yes"],
  ["ProtectKernelModules", "yes"],
  ["ProtectControlGroups", "yes"],
  ["Restart", "on-failure"],
  ["KillMode", "mixed"],
];

describe("systemd units", () => {
  const tempDir = useTempDirs();

  it.each(["reviewbot-api.service", "reviewbot-worker@.service"])("%s carries every hardening directive", async (unit) => {
    const service = await serviceSection(unit);
    for (const [key, value] of HARDENING) expect([key, service.get(key)]).toEqual([key, [value]]);
    expect(service.get("MemoryMax")?.[0]).toMatch(/^\d+[MG]$/);
    expect(Number(service.get("TasksMax")?.[0])).toBeGreaterThan(0);
    expect(service.get("EnvironmentFile")?.[0]).toMatch(/^\/etc\/reviewbot\//);
  });

  it("filters the api's system calls and gives it a dynamic user", async () => {
    const api = await serviceSection("reviewbot-api.service");
    expect(api.get("DynamicUser")).toEqual(["yes"]);
    expect(api.get("SystemCallFilter")).toEqual(["@system-service", "~@privileged @resources @mount @obsolete"]);
    expect(api.get("SystemCallArchitectures")).toEqual(["native"]);
  });

  it("loads secrets as credentials, the App's on the api only, never as plain environment", async () => {
    const api = await serviceSection("reviewbot-api.service");
    const worker = await serviceSection("reviewbot-worker@.service");
    const names = (service: Map<string, string[]>): string[] => (service.get("LoadCredential") ?? []).map((entry) => entry.split(":")[0] ?? "").sort();
    expect(names(api)).toEqual(["dashboard-password", "github-app.pem", "redis-password", "webhook-secret"]);
    expect(names(worker)).toEqual(["redis-password", "worker-credential"]);
    expect(api.get("Environment")).toContain("REDIS_PASSWORD_FILE=%d/redis-password");
    expect(worker.get("Environment")).toContain("REDIS_PASSWORD_FILE=%d/redis-password");
    expect(api.get("Environment")).toContain("GITHUB_PRIVATE_KEY_FILE=%d/github-app.pem");
    expect(worker.get("Environment")).toContain("REVIEWBOT_WORKER_CREDENTIAL_FILE=%d/worker-credential");
    for (const service of [api, worker]) {
      const plain = (service.get("Environment") ?? []).filter((entry) => /^[A-Z_]*(SECRET|PASSWORD|PRIVATE_KEY|CREDENTIAL|TOKEN)=/.test(entry));
      expect(plain).toEqual([]);
    }
  });

  it("lets a draining worker outlast its shutdown grace", async () => {
    const worker = await serviceSection("reviewbot-worker@.service");
    const graceMs = Number(
      /^REVIEWBOT_SHUTDOWN_GRACE_MS=(\d+)$/.exec((worker.get("Environment") ?? []).find((e) => e.startsWith("REVIEWBOT_SHUTDOWN_GRACE_MS=")) ?? "")?.[1],
    );
    const stopS = Number(/^(\d+)s$/.exec(worker.get("TimeoutStopSec")?.[0] ?? "")?.[1]);
    expect(stopS * 1000).toBeGreaterThan(graceMs);
  });

  it("passes systemd-analyze verify and the exposure thresholds", () => {
    const { status, output } = validateUnits();
    expect(output).toContain("validate-units: 3 units ok");
    expect(status).toBe(0);
  });

  it.each([
    ["reviewbot-api.service", "ProtectHome=yes", "ProtectHome=maybe", "Failed to parse protect home value"],
    ["reviewbot-api.service", "SystemCallFilter=@system-service\n", "", "lacks SystemCallFilter=@system-service"],
    ["reviewbot-worker@.service", "NoNewPrivileges=yes", "NoNewPrivileges=no", "lacks NoNewPrivileges=yes"],
    ["reviewbot-worker@.service", "TimeoutStopSec=45s", "TimeoutStopSec=20s", "does not outlast REVIEWBOT_SHUTDOWN_GRACE_MS"],
    ["reviewbot-podman.service", "Delegate=yes", "Delegat=yes", "Unknown key 'Delegat'"],
  ])("refuses %s with %s changed", async (unit, from, to, message) => {
    const dir = await tempDir("units");
    await cp(UNITS, dir, { recursive: true });
    const text = await readFile(join(dir, unit), "utf8");
    expect(text).toContain(from);
    await writeFile(join(dir, unit), text.replace(from, to));
    const { status, output } = validateUnits(dir);
    expect(output).toContain(message);
    expect(status).toBe(1);
  });
});
