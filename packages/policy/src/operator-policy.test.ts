import { describe, expect, it } from "vitest";
import { parseOperatorPolicy } from "./operator-policy.js";

const MiB = 1024 * 1024;

describe("parseOperatorPolicy", () => {
  it("fills every default from an empty policy", () => {
    expect(parseOperatorPolicy({})).toEqual({
      limits: {
        timeoutSeconds: 300,
        memoryBytes: 1024 * MiB,
        cpus: 1,
        pids: 256,
        outputBytes: MiB,
        tmpfsBytes: 64 * MiB,
        concurrency: 2,
        nofile: 1024,
        fsizeBytes: 256 * MiB,
      },
      findings: {
        structuredOutputBytes: 8 * MiB,
        parseSeconds: 10,
        parseMemoryBytes: 128 * MiB,
        perHelper: 5_000,
        perReview: 20_000,
        retainedBytes: 16 * MiB,
      },
      images: {
        base: "localhost/reviewbot/base:latest",
        python: "localhost/reviewbot/python:latest",
        node: "localhost/reviewbot/node:latest",
      },
      defaultImage: "base",
      installHooks: "off",
      installRegistries: ["registry.npmjs.org"],
    });
  });

  it("accepts install hooks through the registry and a list of registry hosts", () => {
    const policy = parseOperatorPolicy({ installHooks: "registry", installRegistries: ["registry.npmjs.org", "files.pythonhosted.org", "pypi.org"] });
    expect(policy).toMatchObject({ installHooks: "registry", installRegistries: ["registry.npmjs.org", "files.pythonhosted.org", "pypi.org"] });
    expect(Object.isFrozen(policy.installRegistries)).toBe(true);
  });

  it.each([
    ["one limit, the rest defaulted", { limits: { memoryBytes: 512 * MiB } }, { memoryBytes: 512 * MiB, pids: 256 }],
    ["fractional CPUs", { limits: { cpus: 0.5 } }, { cpus: 0.5, timeoutSeconds: 300 }],
  ])("accepts %s", (_label, input, expected) => {
    expect(parseOperatorPolicy(input).limits).toMatchObject(expected);
  });

  it.each([
    ["a larger cap for documents", { structuredOutputBytes: 32 * MiB }, { structuredOutputBytes: 32 * MiB, perHelper: 5_000 }],
    ["a fractional parse deadline", { parseSeconds: 0.5 }, { parseSeconds: 0.5, parseMemoryBytes: 128 * MiB }],
    ["the smallest parse heap", { parseMemoryBytes: 32 * MiB }, { parseMemoryBytes: 32 * MiB }],
  ])("accepts findings limits: %s", (_label, findings, expected) => {
    expect(parseOperatorPolicy({ findings }).findings).toMatchObject(expected);
  });

  it("accepts an allowlist with its own default image", () => {
    const policy = parseOperatorPolicy({
      images: { python: "localhost/reviewbot/python:3.12", node: "localhost/reviewbot/node@sha256:abc" },
      defaultImage: "python",
    });
    expect(policy.images).toEqual({ python: "localhost/reviewbot/python:3.12", node: "localhost/reviewbot/node@sha256:abc" });
    expect(policy.defaultImage).toBe("python");
  });

  it("returns a frozen policy", () => {
    const policy = parseOperatorPolicy({});
    expect([policy, policy.limits, policy.findings, policy.images].every((part) => Object.isFrozen(part))).toBe(true);
  });

  it.each([
    ["a zero ceiling", { limits: { memoryBytes: 0 } }, "limits.memoryBytes: Too small: expected number to be >0"],
    ["a fractional count", { limits: { timeoutSeconds: 1.5 } }, "limits.timeoutSeconds: Invalid input: expected int, received number"],
    ["a string count", { limits: { pids: "256" } }, "limits.pids: Invalid input: expected number, received string"],
    ["too few CPUs", { limits: { cpus: 0.001 } }, "limits.cpus: Too small: expected number to be >=0.01"],
    ["an unknown limit", { limits: { swapBytes: 1 } }, "limits.swapBytes: unknown key"],
    ["an unknown top-level key", { network: true }, "network: unknown key"],
    ["an unknown findings limit", { findings: { perFile: 10 } }, "findings.perFile: unknown key"],
    [
      "a parse heap a thread cannot start in",
      { findings: { parseMemoryBytes: 16 * MiB } },
      "findings.parseMemoryBytes: Too small: expected number to be >=33554432",
    ],
    ["no parse time at all", { findings: { parseSeconds: 0 } }, "findings.parseSeconds: Too small: expected number to be >=0.01"],
    ["a zero findings cap", { findings: { perReview: 0 } }, "findings.perReview: Too small: expected number to be >0"],
    ["an unknown install hook mode", { installHooks: "on" }, 'installHooks: Invalid option: expected one of "off"|"registry"'],
    ["a registry IP literal", { installRegistries: ["104.16.0.1"] }, "installRegistries[0]: must be a lower-case DNS name"],
    ["a registry with a port", { installRegistries: ["registry.npmjs.org:8443"] }, "installRegistries[0]: must be a lower-case DNS name"],
    ["a wildcard registry", { installRegistries: ["*.npmjs.org"] }, "installRegistries[0]: must be a lower-case DNS name"],
    ["a single-label registry", { installRegistries: ["localhost"] }, "installRegistries[0]: must be a lower-case DNS name"],
    ["an upper-case registry", { installRegistries: ["Registry.npmjs.org"] }, "installRegistries[0]: must be a lower-case DNS name"],
    ["no registry at all", { installRegistries: [] }, "installRegistries: Too small"],
    ["an image name with capitals", { images: { Base: "x" } }, "images.Base: invalid key: must match /^[a-z][a-z0-9_-]{0,63}$/"],
    ["an image reference with a space", { images: { base: "x --privileged" } }, "images.base: is not an image reference"],
    ["an empty image reference", { images: { base: "" } }, "images.base: is not an image reference"],
    ["a default image missing from the allowlist", { images: { python: "py:3" } }, 'defaultImage: "base" is not a key of images (python)'],
    ["an unknown default image", { defaultImage: "ruby" }, 'defaultImage: "ruby" is not a key of images (base, python, node)'],
    ["a __proto__ image name", JSON.parse('{"images": {"base": "b", "__proto__": "x"}}'), "images.__proto__: is not allowed as a key"],
    ["null", null, "(root): Invalid input: expected object, received null"],
    ["an array", [], "(root): Invalid input: expected object, received array"],
  ])("refuses %s, naming the key", (_label, input, message) => {
    expect(() => parseOperatorPolicy(input)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining(message) as string }));
  });

  it("reports every bad key at once", () => {
    expect(() => parseOperatorPolicy({ limits: { pids: 0, nofile: -1 }, extra: 1 })).toThrow(
      "invalid operator policy: limits.pids: Too small: expected number to be >0; limits.nofile: Too small: expected number to be >0; extra: unknown key",
    );
  });
});
