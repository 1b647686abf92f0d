import { describe, expect, it } from "vitest";
import { buildSandboxEnv } from "./sandbox-env.js";
import { depsEnv, installPlan } from "./install-plan.js";

describe("installPlan", () => {
  it("runs npm behind the node forwarder, into our prefix, with our proxy and CA bundle", () => {
    const result = installPlan({ manager: "npm", argv: ["npm", "install", "is-number@7.0.0", "--ignore-scripts"] });
    if (!result.ok) throw new Error(result.problem);
    expect(result.plan.argv).toEqual([
      "node",
      "/run/reviewbot/registry/forward.mjs",
      "/run/reviewbot/registry/proxy.sock",
      "3128",
      "npm",
      "install",
      "is-number@7.0.0",
      "--ignore-scripts",
      "--prefix",
      "/opt/reviewbot/deps/node",
    ]);
    expect(result.plan.env).toMatchObject({
      HTTPS_PROXY: "http://127.0.0.1:3128",
      npm_config_https_proxy: "http://127.0.0.1:3128",
      NODE_EXTRA_CA_CERTS: "/run/reviewbot/registry/ca.crt",
      npm_config_userconfig: "/run/reviewbot/registry/no-user-npmrc",
      HOME: "/tmp",
    });
  });

  it("runs pip behind the python forwarder, into our target", () => {
    const result = installPlan({ manager: "pip", argv: ["python3", "-m", "pip", "install", "ruff==0.6.0"] });
    if (!result.ok) throw new Error(result.problem);
    expect(result.plan.argv.slice(0, 2)).toEqual(["python3", "/run/reviewbot/registry/forward.py"]);
    expect(result.plan.argv.slice(-2)).toEqual(["--target", "/opt/reviewbot/deps/python"]);
    expect(result.plan.env).toMatchObject({ PIP_CONFIG_FILE: "/dev/null", SSL_CERT_FILE: "/run/reviewbot/registry/ca.crt" });
  });

  it("refuses npm ci: the lockfile would come from the PR and is not in the cache key", () => {
    expect(installPlan({ manager: "npm", argv: ["npm", "ci", "--ignore-scripts"] })).toEqual({
      ok: false,
      problem: expect.stringContaining("npm ci installs the checkout's lockfile") as string,
    });
  });
});

describe("depsEnv", () => {
  it("puts the deps first on PATH and sets NODE_PATH and PYTHONPATH into them", () => {
    const env = depsEnv(buildSandboxEnv({}));
    expect(env.PATH).toBe(
      "/opt/reviewbot/deps/node/node_modules/.bin:/opt/reviewbot/deps/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    );
    expect(env).toMatchObject({ NODE_PATH: "/opt/reviewbot/deps/node/node_modules", PYTHONPATH: "/opt/reviewbot/deps/python", HOME: "/tmp" });
    expect(Object.isFrozen(env)).toBe(true);
  });

  it("is not something a repository can ask for: the allowlist still refuses the names", () => {
    expect(() => buildSandboxEnv({ NODE_PATH: "/work" })).toThrow(/NODE_PATH/);
    expect(() => buildSandboxEnv({ PYTHONPATH: "/work" })).toThrow(/PYTHONPATH/);
  });
});
