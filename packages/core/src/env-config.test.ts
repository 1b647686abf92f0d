import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseEnvConfig } from "./env-config.js";

const Schema = z
  .object({
    REDIS_URL: z.string(),
    REVIEWBOT_SECRET: z.string().min(8),
    REVIEWBOT_MODE: z.enum(["a", "b"]).default("a"),
  })
  .strict();

const dir = mkdtempSync(join(tmpdir(), "reviewbot-env-"));
const secretFile = join(dir, "secret");
writeFileSync(secretFile, "from-a-file-123\n");

describe("parseEnvConfig", () => {
  it("reads declared names and REVIEWBOT_* only, with defaults", () => {
    expect(parseEnvConfig(Schema, { REDIS_URL: "redis://x", REVIEWBOT_SECRET: "12345678", HOME: "/root" })).toEqual({
      REDIS_URL: "redis://x",
      REVIEWBOT_SECRET: "12345678",
      REVIEWBOT_MODE: "a",
    });
  });

  it("reads a secret from X_FILE without its trailing newline", () => {
    expect(parseEnvConfig(Schema, { REDIS_URL: "redis://x", REVIEWBOT_SECRET_FILE: secretFile }).REVIEWBOT_SECRET).toBe("from-a-file-123");
  });

  it("reads X_FILE for a declared X outside REVIEWBOT_* (REDIS_PASSWORD_FILE), and ignores other *_FILE names", () => {
    const config = parseEnvConfig(Schema.extend({ REDIS_PASSWORD: z.string().optional() }), {
      REDIS_URL: "redis://x",
      REVIEWBOT_SECRET: "12345678",
      REDIS_PASSWORD_FILE: secretFile,
      NODE_EXTRA_CA_CERTS_FILE: join(dir, "missing"),
    });
    expect(config.REDIS_PASSWORD).toBe("from-a-file-123");
    expect(config).not.toHaveProperty("NODE_EXTRA_CA_CERTS_FILE");
  });

  it.each([
    ["an unknown REVIEWBOT_* name", { REDIS_URL: "r", REVIEWBOT_SECRET: "12345678", REVIEWBOT_MDOE: "b" }, /^REVIEWBOT_MDOE: /],
    ["a bad value, named without its value", { REDIS_URL: "r", REVIEWBOT_SECRET: "short" }, /^REVIEWBOT_SECRET: Too small/],
    [
      "both X and X_FILE",
      { REDIS_URL: "r", REVIEWBOT_SECRET: "12345678", REVIEWBOT_SECRET_FILE: secretFile },
      /set REVIEWBOT_SECRET or REVIEWBOT_SECRET_FILE, not both/,
    ],
    ["an unreadable X_FILE", { REDIS_URL: "r", REVIEWBOT_SECRET_FILE: join(dir, "missing") }, /^REVIEWBOT_SECRET_FILE: cannot read/],
    ["an X_FILE for an undeclared X", { REDIS_URL: "r", REVIEWBOT_SECRET: "12345678", REVIEWBOT_OTHER_FILE: secretFile }, /^REVIEWBOT_OTHER_FILE: /],
  ])("refuses %s with CONFIG_INVALID", (_name, env, message) => {
    expect(() => parseEnvConfig(Schema, env)).toThrow(message);
    expect(() => parseEnvConfig(Schema, env)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
