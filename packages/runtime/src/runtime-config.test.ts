import { describe, expect, it } from "vitest";
import { RuntimeConfig, runtimeConfigEnv } from "./runtime-config.js";

describe("runtimeConfigEnv", () => {
  it("gives variables that read back as the same settings, defaults and the uid range included", () => {
    const config = RuntimeConfig.parse({
      REVIEWBOT_CACHE_DIR: "/srv/cache",
      REVIEWBOT_ENGINE: "bwrap",
      REVIEWBOT_SANDBOX: "required",
      REVIEWBOT_SANDBOX_UIDS: "700000000-700000009",
      REVIEWBOT_MAX_FILES: "500",
    });
    const env = runtimeConfigEnv(config);
    expect(env).toMatchObject({ REVIEWBOT_SANDBOX_UIDS: "700000000-700000009", REVIEWBOT_MAX_FILES: "500", REVIEWBOT_GIT_TIMEOUT_MS: "120000" });
    expect(RuntimeConfig.parse(env)).toEqual(config);
  });

  it("leaves unset optional settings unset", () => {
    const env = runtimeConfigEnv(RuntimeConfig.parse({}));
    expect(Object.keys(env)).not.toContain("REVIEWBOT_POLICY_FILE");
    expect(Object.keys(env)).not.toContain("REVIEWBOT_SANDBOX_UIDS");
  });
});
