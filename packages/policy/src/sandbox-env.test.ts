import { afterEach, describe, expect, it } from "vitest";
import { buildSandboxEnv, SANDBOX_BASE_ENV } from "./sandbox-env.js";

describe("buildSandboxEnv", () => {
  afterEach(() => {
    delete process.env.SOME_SECRET;
    delete process.env.REVIEWBOT_LEAK;
  });

  it("is exactly the fixed base when nothing is added, and frozen", () => {
    const env = buildSandboxEnv({});
    expect(Object.entries(env).map(([name, value]) => `${name}=${value}`)).toEqual([
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "HOME=/tmp",
      "LANG=C.UTF-8",
      "TMPDIR=/tmp",
      "CI=true",
      "NO_COLOR=1",
    ]);
    expect(Object.isFrozen(env)).toBe(true);
  });

  it("never copies the worker's environment", () => {
    process.env.SOME_SECRET = "hunter2-do-not-leak";
    process.env.REVIEWBOT_LEAK = "allowlisted-name-but-implicit";
    const env = buildSandboxEnv({ REVIEWBOT_HELPER: "lint" });
    expect(env).toEqual({ ...SANDBOX_BASE_ENV, REVIEWBOT_HELPER: "lint" });
    expect(JSON.stringify(env)).not.toContain("hunter2");
  });

  it.each([
    [{ REVIEWBOT_HELPER: "lint", REVIEWBOT_BASE_SHA: "abc123" }],
    [{ PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" }],
    [{ TZ: "UTC", LC_ALL: "C.UTF-8", TERM: "dumb" }],
    [{ REVIEWBOT_LONG: "x".repeat(4096) }],
    [{ REVIEWBOT_MULTILINE: "a\nb" }],
  ])("adds allowlisted values %j", (explicit) => {
    expect(buildSandboxEnv(explicit)).toEqual({ ...SANDBOX_BASE_ENV, ...explicit });
  });

  it.each([
    ["LD_PRELOAD", "makes the dynamic loader inject or search other libraries"],
    ["LD_LIBRARY_PATH", "makes the dynamic loader inject or search other libraries"],
    ["LD_AUDIT", "makes the dynamic loader inject or search other libraries"],
    ["GCONV_PATH", "makes the dynamic loader inject or search other libraries"],
    ["BASH_ENV", "makes a shell run a startup file or change how it parses"],
    ["ENV", "makes a shell run a startup file or change how it parses"],
    ["IFS", "makes a shell run a startup file or change how it parses"],
    ["PYTHONPATH", "makes Python import or run other code"],
    ["PYTHONSTARTUP", "makes Python import or run other code"],
    ["NODE_OPTIONS", "makes Node.js load other code (--require, --import) or search other module paths"],
    ["NODE_PATH", "makes Node.js load other code (--require, --import) or search other module paths"],
    ["PERL5OPT", "makes Perl or Ruby load other code"],
    ["RUBYOPT", "makes Perl or Ruby load other code"],
    ["GIT_SSH_COMMAND", "changes git's hooks, config or helpers"],
    ["GIT_CONFIG_GLOBAL", "changes git's hooks, config or helpers"],
    ["PIP_INDEX_URL", "changes the package index, install target or scripts of pip or npm"],
    ["NPM_CONFIG_SCRIPT_SHELL", "changes the package index, install target or scripts of pip or npm"],
    ["PATH", "is fixed by the sandbox and cannot be overridden"],
    ["HOME", "is fixed by the sandbox and cannot be overridden"],
    ["NO_COLOR", "is fixed by the sandbox and cannot be overridden"],
    ["REVIEWBOT_GITHUB_TOKEN", "looks like a secret, and secrets never enter a sandbox"],
    ["REVIEWBOT_API_KEY", "looks like a secret, and secrets never enter a sandbox"],
    ["REVIEWBOT_WEBHOOK_SECRET", "looks like a secret, and secrets never enter a sandbox"],
    ["GITHUB_TOKEN", "looks like a secret, and secrets never enter a sandbox"],
    ["AWS_SECRET_ACCESS_KEY", "looks like a secret, and secrets never enter a sandbox"],
    ["FOO", "is not in the sandbox environment allowlist (REVIEWBOT_*, PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED, PYTHONIOENCODING, TZ, LC_ALL, TERM)"],
    ["REVIEWBOTX", "is not in the sandbox environment allowlist (REVIEWBOT_*, PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED, PYTHONIOENCODING, TZ, LC_ALL, TERM)"],
  ])("refuses the variable %s", (name, reason) => {
    expect(() => buildSandboxEnv({ [name]: "x" })).toThrow(expect.objectContaining({ code: "POLICY_DENIED", message: `env.${name}: ${reason}` }));
  });

  it.each([
    ["lower", 'env["lower"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    ["1ABC", 'env["1ABC"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    ["A-B", 'env["A-B"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    ["", 'env[""]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    ["__proto__", 'env["__proto__"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    ["A=B", 'env["A=B"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    ["A\nB", 'env["A\\nB"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)'],
    [`REVIEWBOT_${"X".repeat(128)}`, `env["REVIEWBOT_${"X".repeat(70)}…"]: is not a valid variable name (/^[A-Z_][A-Z0-9_]{0,127}$/)`],
  ])("refuses the malformed name %j", (name, message) => {
    expect(() => buildSandboxEnv(JSON.parse(`{${JSON.stringify(name)}:"x"}`) as Record<string, string>)).toThrow(
      expect.objectContaining({ code: "POLICY_DENIED", message }),
    );
  });

  it.each([
    ["a\0b", "env.REVIEWBOT_X: value contains a NUL byte"],
    ["x".repeat(4097), "env.REVIEWBOT_X: value is 4097 characters long, at most 4096 allowed"],
  ])("refuses the value %#", (value, message) => {
    expect(() => buildSandboxEnv({ REVIEWBOT_X: value })).toThrow(expect.objectContaining({ code: "POLICY_DENIED", message }));
  });
});
