import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AppError, ERROR_CATALOGUE, isAppError } from "./errors.js";

const docs = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");

describe("error catalogue", () => {
  it.each(Object.keys(ERROR_CATALOGUE))("documents %s in docs/errors.md", (code) => {
    expect(docs).toMatch(new RegExp(`^\\| \`${code}\` \\|`, "m"));
  });

  it("documents no code that does not exist", () => {
    const documented = [...docs.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });
});

describe("AppError", () => {
  it("carries the status and retry policy of its code", () => {
    const err = new AppError("GIT_TIMEOUT", "git fetch took longer than 60000 ms");
    expect(err).toMatchObject({ code: "GIT_TIMEOUT", status: 504, retryable: true, name: "AppError" });
    expect(err.message).toBe("git fetch took longer than 60000 ms");
  });

  it("freezes its details", () => {
    const err = new AppError("POLICY_DENIED", "no", { details: { field: "command[0]" } });
    expect(Object.isFrozen(err.details)).toBe(true);
  });

  it.each([
    ["an AppError", new AppError("USAGE", "bad"), true],
    ["a structured clone of one", structuredClone({ name: "AppError", code: "USAGE", message: "x" }), true],
    ["an unknown code", { name: "AppError", code: "NOPE" }, false],
    ["a plain Error", new Error("x"), false],
    ["null", null, false],
    ["a string", "AppError", false],
  ])("isAppError recognises %s: %s", (_label, value, expected) => {
    expect(isAppError(value)).toBe(expected);
  });
});
