import { describe, expect, it } from "vitest";
import { helperCeilings } from "./limit-narrowing.js";
import { parseOperatorPolicy } from "./operator-policy.js";
import { parseRepoConfig } from "./repo-config.js";

const MiB = 1024 * 1024;
const operator = parseOperatorPolicy({
  images: { base: "localhost/reviewbot/base:latest", python: "localhost/reviewbot/python:3.12" },
});
const CEILINGS = helperCeilings(operator.limits);
const lint = { name: "lint", description: "Runs flake8", command: ["flake8"] };

const parse = (config: unknown) => parseRepoConfig(JSON.stringify(config), operator);
const messages = (text: string) => parseRepoConfig(text, operator).errors.map((e) => e.message);

describe("parseRepoConfig: resolving helpers", () => {
  it("resolves an ai-reviewer/serge helper with our defaults", () => {
    expect(parse({ helpers: [{ ...lint, cwd: "src", allow_args: true, max_args: 4, timeout_seconds: 60 }] })).toEqual({
      errors: [],
      helpers: [
        {
          name: "lint",
          description: "Runs flake8",
          command: ["flake8"],
          cwd: "src",
          image: { name: "base", reference: "localhost/reviewbot/base:latest" },
          format: "text",
          severity: {},
          limits: { ...CEILINGS, timeoutSeconds: 60 },
          allowArgs: true,
          maxArgs: 4,
          argsSeparator: true,
          install: undefined,
          warnings: [],
        },
      ],
    });
  });

  it('accepts serge\'s "allow_args": false, "max_args": 0 and refuses every runtime argument', () => {
    const config = '{"helpers": [{"name": "lint", "description": "Runs flake8", "command": ["flake8"], "allow_args": false, "max_args": 0}]}';
    const { helpers, errors } = parseRepoConfig(config, operator);
    expect(errors).toEqual([]);
    expect(helpers[0]).toMatchObject({ allowArgs: false, maxArgs: 0 });
  });

  it("resolves every key of ours", () => {
    const helper = {
      name: "ruff",
      description: "Ruff, as JSON",
      command: ["./.ai/ruff.sh", "--output-format=json"],
      install: ["pip", "install", "ruff==0.6.0"],
      image: "python",
      format: "ruff-json",
      severity: { default: "warning", E501: "notice", "no-unused-vars": "error" },
      args_separator: false,
      memory_mb: 256,
      cpus: 0.5,
      pids: 64,
    };
    expect(parse({ helpers: [helper] }).helpers[0]).toMatchObject({
      command: ["/work/.ai/ruff.sh", "--output-format=json"],
      cwd: ".",
      image: { name: "python", reference: "localhost/reviewbot/python:3.12" },
      format: "ruff-json",
      severity: { default: "warning", E501: "notice", "no-unused-vars": "error" },
      limits: { ...CEILINGS, memoryBytes: 256 * MiB, cpus: 0.5, pids: 64 },
      allowArgs: false,
      maxArgs: 8,
      argsSeparator: false,
      install: { manager: "pip", argv: ["pip", "install", "ruff==0.6.0"] },
    });
  });

  it("clamps a request above a ceiling and keeps the warning with the helper", () => {
    const [helper] = parse({ helpers: [{ ...lint, memory_mb: 99_999 }] }).helpers;
    expect(helper?.limits.memoryBytes).toBe(1024 * MiB);
    expect(helper?.warnings).toEqual(["helpers[0].memory_mb: requested 99999 MiB, above the operator ceiling; granted 1024 MiB"]);
  });

  it("keeps the valid helpers when one is bad", () => {
    const result = parse({ helpers: [lint, { ...lint, name: "escape", command: ["../x.sh"] }, { ...lint, name: "types" }] });
    expect(result.helpers.map((h) => h.name)).toEqual(["lint", "types"]);
    expect(result.errors).toEqual([{ path: "helpers[1].command[0]", message: 'helpers[1].command[0]: "../x.sh" leaves .ai/ after normalisation' }]);
  });

  it("refuses every holder of a duplicated name, ignoring case", () => {
    const result = parse({ helpers: [lint, { ...lint, name: "other" }, { ...lint, name: "Lint" }] });
    expect(result.helpers.map((h) => h.name)).toEqual(["other"]);
    expect(result.errors.map((e) => e.message)).toEqual([
      'helpers[0].name: "lint" is also the name of helpers[2] (names must be unique, ignoring case)',
      'helpers[2].name: "Lint" is also the name of helpers[0] (names must be unique, ignoring case)',
    ]);
  });

  it("reports every rule a helper breaks", () => {
    expect(
      parse({ helpers: [{ ...lint, command: ["/bin/sh"], cwd: "..", image: "ruby", pids: 0, install: ["npm", "install", "-g", "x"] }] }).errors.map(
        (e) => e.message,
      ),
    ).toEqual([
      'helpers[0].command[0]: "/bin/sh" is an absolute path',
      'helpers[0].cwd: ".." leaves the worktree after normalisation',
      'helpers[0].install[2]: "-g" writes outside the install target',
      `helpers[0].image: "ruby" is not in the operator's image allowlist (allowed: base, python)`,
      "helpers[0].pids: 0 is not positive",
    ]);
  });

  it("accepts a byte-order mark", () => {
    expect(parseRepoConfig(`\uFEFF${JSON.stringify({ helpers: [lint] })}`, operator).helpers).toHaveLength(1);
  });
});

describe("parseRepoConfig: hostile documents yield one error and no helper", () => {
  const helpers = (n: number) => Array.from({ length: n }, (_, i) => ({ ...lint, name: `h${i}` }));
  it.each([
    ["empty text", "", '(root): is not valid JSON: "Unexpected end of JSON input"'],
    ["truncated JSON", '{"helpers": [', "(root): is not valid JSON"],
    ["an array", "[]", "(root): Invalid input: expected object, received array"],
    ["null", "null", "(root): Invalid input: expected object, received null"],
    ["a string", '"helpers"', "(root): Invalid input: expected object, received string"],
    ["no helpers key", "{}", "helpers: is required"],
    ["helpers as an object", '{"helpers": {"lint": {}}}', "helpers: Invalid input: expected array, received object"],
    ["an unknown top-level key", '{"helpers": [], "network": true}', "network: unknown key"],
    ["a __proto__ key", '{"helpers": [], "__proto__": {"polluted": true}}', "__proto__: unknown key"],
    ["51 helpers", JSON.stringify({ helpers: helpers(51) }), "helpers: has more than 50 helpers"],
    ["a file over 256 KiB", JSON.stringify({ helpers: [{ ...lint, description: "x".repeat(262_144) }] }), "(root): is at least 262"],
    ["256 KiB of UTF-16 but more in UTF-8", JSON.stringify({ helpers: [], pad: "é".repeat(131_072) }), "(root): is at least 262"],
  ])("%s", (_label, text, message) => {
    const result = parseRepoConfig(text, operator);
    expect(result.helpers).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toContain(message);
  });

  it("accepts 50 helpers", () => {
    expect(parse({ helpers: helpers(50) }).helpers).toHaveLength(50);
  });
});

describe("parseRepoConfig: a bad helper is reported by field", () => {
  it.each([
    ["an unknown key", { ...lint, shell: true }, "helpers[0].shell: unknown key"],
    ["a NUL in a key", { ...lint, "na\0me": "x" }, 'helpers[0]["na\\u0000me"]: unknown key'],
    ["a missing name", { description: "d", command: ["x"] }, "helpers[0].name: is required"],
    ["a missing command", { name: "x", description: "d" }, "helpers[0].command: is required"],
    ["a missing description", { name: "x", command: ["x"] }, "helpers[0].description: is required"],
    ["a name starting with a digit", { ...lint, name: "9lint" }, 'helpers[0].name: "9lint" does not match /^[A-Za-z][A-Za-z0-9_-]{0,63}$/'],
    ["a name with a shell character", { ...lint, name: "lint;rm" }, 'helpers[0].name: "lint;rm" does not match /^[A-Za-z][A-Za-z0-9_-]{0,63}$/'],
    ["a 65-character name", { ...lint, name: `a${"b".repeat(64)}` }, "does not match /^[A-Za-z][A-Za-z0-9_-]{0,63}$/"],
    ["a NUL in the name", { ...lint, name: "li\0nt" }, 'helpers[0].name: "li\\u0000nt" does not match'],
    ["an empty command", { ...lint, command: [] }, "helpers[0].command: is empty; give a program and its arguments"],
    ["65 argv entries", { ...lint, command: Array<string>(65).fill("x") }, "helpers[0].command: has more than 64 entries"],
    ["a 1025-character argument", { ...lint, command: ["flake8", "x".repeat(1025)] }, "helpers[0].command[1]: is longer than 1024 characters"],
    ["a NUL in an argument", { ...lint, command: ["flake8", "a\0b"] }, "helpers[0].command[1]: contains a NUL byte"],
    ["a command string, not an array", { ...lint, command: "flake8 src" }, "helpers[0].command: Invalid input: expected array, received string"],
    ["a 1001-character description", { ...lint, description: "x".repeat(1001) }, "helpers[0].description: is longer than 1000 characters"],
    ["a NUL in the description", { ...lint, description: "a\0b" }, "helpers[0].description: contains a NUL byte"],
    ["a NUL in cwd", { ...lint, cwd: "src\0" }, "helpers[0].cwd: contains a NUL byte"],
    ["a NUL in install", { ...lint, install: ["pip", "install", "x\0"] }, "helpers[0].install[2]: contains a NUL byte"],
    ["an unknown format", { ...lint, format: "json" }, "helpers[0].format: Invalid option: expected one of"],
    ["an unknown severity level", { ...lint, severity: { E501: "fatal" } }, "helpers[0].severity.E501: Invalid option: expected one of"],
    ["an empty severity key", { ...lint, severity: { "": "error" } }, 'helpers[0].severity[""]: invalid key: is empty'],
    ["a control character in a severity key", { ...lint, severity: { "a\u0007": "error" } }, "invalid key: contains the control character U+0007"],
    [
      "201 severity entries",
      { ...lint, severity: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`R${i}`, "error"])) },
      "helpers[0].severity: has more than 200 entries",
    ],
    ["max_args above 32", { ...lint, max_args: 33 }, "helpers[0].max_args: Too big: expected number to be <=32"],
    ["max_args of -1", { ...lint, max_args: -1 }, "helpers[0].max_args: Too small: expected number to be >=0"],
    [
      "max_args of 0 with allow_args",
      { ...lint, allow_args: true, max_args: 0 },
      "helpers[0].max_args: is 0 while allow_args is true: no argument could be passed",
    ],
    ["allow_args as a string", { ...lint, allow_args: "yes" }, "helpers[0].allow_args: Invalid input: expected boolean, received string"],
    ["a timeout as a string", { ...lint, timeout_seconds: "60" }, "helpers[0].timeout_seconds: Invalid input: expected number, received string"],
    ["a fractional memory request", { ...lint, memory_mb: 1.5 }, "helpers[0].memory_mb: 1.5 is not a whole number"],
    ["an image reference", { ...lint, image: "docker.io/library/python:3" }, '"docker.io/library/python:3" is an image reference or path'],
    ["an editable install", { ...lint, install: ["pip", "install", "-e", "pkg"] }, 'helpers[0].install[2]: "-e" installs local code in editable mode'],
    ["a script outside .ai/", { ...lint, command: ["./scripts/lint.sh"] }, 'helpers[0].command[0]: "./scripts/lint.sh" leaves .ai/ after normalisation'],
  ])("%s", (_label, helper, message) => {
    const result = parse({ helpers: [helper] });
    expect(result.helpers).toEqual([]);
    expect(result.errors.map((e) => e.message)).toEqual([expect.stringContaining(message)]);
  });

  it.each([
    ['"__proto__": {"allow_args": true}', "helpers[0].__proto__: unknown key"],
    ['"severity": {"__proto__": "error"}', "helpers[0].severity.__proto__: is not allowed as a key"],
  ])("reports a __proto__ key instead of dropping it: %s", (member, message) => {
    expect(messages(`{"helpers": [{"name": "x", "description": "d", "command": ["x"], ${member}}]}`)).toEqual([message]);
  });
});
