import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { redisUrlFor, renderRedisAcl } from "./redis-acl.js";

const template = readFileSync(new URL("../../../infra/redis/users.acl.template", import.meta.url), "utf8");

describe("renderRedisAcl", () => {
  const rendered = renderRedisAcl(template, { api: "api-password", worker: "worker-password", admin: "admin-password" });

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

describe("redisUrlFor", () => {
  it.each([
    ["redis://127.0.0.1:6379", "worker", "redis://reviewbot-worker@127.0.0.1:6379"],
    ["redis://someone:secret@redis:6379/0", "api", "redis://reviewbot-api@redis:6379/0"],
  ] as const)("%s as %s", (url, role, expected) => {
    expect(redisUrlFor(url, role)).toBe(expected);
  });
});
