import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redisUrlFor, renderRedisAcl } from "./redis-acl.js";
import { DEFAULT_KEYSPACE, redisKeyspace } from "./redis-keyspace.js";

const template = readFileSync(new URL("../../../infra/redis/users.acl.template", import.meta.url), "utf8");
const renderScript = new URL("../../../infra/redis/render-acl.sh", import.meta.url).pathname;
const passwords = { api: "api-password", worker: "worker-password", admin: "admin-password" };

describe("renderRedisAcl", () => {
  const rendered = renderRedisAcl(template, passwords, DEFAULT_KEYSPACE);

  it("puts each role's password hash in place, and no password", () => {
    const hash = createHash("sha256").update("worker-password").digest("hex");
    expect(rendered).toContain(`user reviewbot-worker on #${hash} `);
    for (const password of ["api-password", "worker-password", "admin-password"]) expect(rendered).not.toContain(password);
    expect(rendered).not.toMatch(/\{\{|^#/m);
  });

  it("gives the default user a password (the admin's) and the worker no publisher queue", () => {
    expect(rendered).toMatch(/^user default on #[0-9a-f]{64} /m);
    expect(rendered).not.toMatch(/nopass/);
    const worker = rendered.split("\n").find((line) => line.startsWith("user reviewbot-worker ")) ?? "";
    expect(worker).toContain("~bull:reviews:*");
    expect(worker).not.toContain("bull:github");
    expect(worker).not.toMatch(/~reviewbot:\*/);
  });

  it("gives the worker an allowlist of commands: no category, no keyspace listing, no CLIENT TRACKING", () => {
    const worker = rendered.split("\n").find((line) => line.startsWith("user reviewbot-worker ")) ?? "";
    const rules = worker.split(" ").filter((rule) => /^[+-]/.test(rule));
    expect(rules[0]).toBe("-@all");
    expect(rules.slice(1).every((rule) => rule.startsWith("+") && !rule.startsWith("+@"))).toBe(true);
    for (const forbidden of ["+keys", "+scan", "+randomkey", "+dbsize", "+client", "+client|tracking", "+client|list", "+publish", "+select"])
      expect(rules).not.toContain(forbidden);
  });
});

describe("renderRedisAcl under REVIEWBOT_REDIS_PREFIX", () => {
  const userLine = (acl: string, user: string): string => acl.split("\n").find((line) => line.startsWith(`user ${user} `)) ?? "";
  const patterns = (line: string): string[] => line.split(" ").filter((rule) => /^(%R)?~|^&/.test(rule));

  it("keeps today's patterns without a prefix, so a running fleet's users are unchanged", () => {
    const acl = renderRedisAcl(template, passwords, DEFAULT_KEYSPACE);
    expect(patterns(userLine(acl, "reviewbot-api"))).toEqual(["~bull:reviews:*", "~bull:github:*", "~reviewbot:*", "&reviewbot:cancel"]);
    expect(patterns(userLine(acl, "reviewbot-worker"))).toEqual(["~bull:reviews:*", "~reviewbot:lease:*", "%R~reviewbot:pr:*", "&reviewbot:cancel"]);
  });

  it("puts every role's key and channel pattern under the prefix", () => {
    const acl = renderRedisAcl(template, passwords, redisKeyspace("{rb}"));
    expect(patterns(userLine(acl, "reviewbot-api"))).toEqual(["~{rb}:bull:reviews:*", "~{rb}:bull:github:*", "~{rb}:*", "&{rb}:cancel"]);
    expect(patterns(userLine(acl, "reviewbot-worker"))).toEqual(["~{rb}:bull:reviews:*", "~{rb}:lease:*", "%R~{rb}:pr:*", "&{rb}:cancel"]);
    expect(acl).not.toMatch(/\{\{|reviewbot:|[~&]bull:/);
  });

  const dir = mkdtempSync(join(tmpdir(), "render-acl-"));
  const files = Object.entries(passwords).map(([role, password]) => {
    writeFileSync(join(dir, role), `${password}\n`);
    return join(dir, role);
  });
  const runScript = (prefix: string | undefined) =>
    spawnSync("bash", [renderScript, ...files], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, ...(prefix === undefined ? {} : { REVIEWBOT_REDIS_PREFIX: prefix }) },
    });

  it.each([undefined, "{rb}", "{reviewbot}:staging"])("renders the same file from infra/redis/render-acl.sh (prefix %s)", (prefix) => {
    const result = runScript(prefix);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(renderRedisAcl(template, passwords, redisKeyspace(prefix)));
  });

  it.each(["rb*", "rb ?", "[rb]", "rb\nuser x on", "rb&x", "rb/x", "{rb}:", "", "rb{x}"])(
    "refuses the prefix %j in the shell renderer as the apps do",
    (prefix) => {
      expect(() => redisKeyspace(prefix)).toThrow();
      const result = runScript(prefix);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/^REVIEWBOT_REDIS_PREFIX: /);
      expect(result.stdout).toBe("");
    },
  );
});

describe("redisUrlFor", () => {
  it.each([
    ["redis://127.0.0.1:6379", "worker", "redis://reviewbot-worker@127.0.0.1:6379"],
    ["redis://someone:secret@redis:6379/0", "api", "redis://reviewbot-api@redis:6379/0"],
  ] as const)("%s as %s", (url, role, expected) => {
    expect(redisUrlFor(url, role)).toBe(expected);
  });
});
