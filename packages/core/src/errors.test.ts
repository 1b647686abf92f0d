import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AppError, ERROR_CATALOGUE, isAppError } from "./errors.js";

const docs = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");

/** The table's rows: code → its status, retry and meaning columns as written. */
const rows = new Map(
  [...docs.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (yes|no) \| (.*) \|$/gm)].map((m) => [
    m[1],
    { status: Number(m[2]), retryable: m[3] === "yes", meaning: m[4] ?? "" },
  ]),
);

describe("error catalogue", () => {
  it.each(Object.keys(ERROR_CATALOGUE))("documents %s in docs/errors.md", (code) => {
    expect(docs).toMatch(new RegExp(`^\\| \`${code}\` \\|`, "m"));
  });

  it.each(Object.entries(ERROR_CATALOGUE))("documents the status and retry policy %s has, and what it means", (code, spec) => {
    expect(rows.get(code)).toMatchObject({ status: spec.status, retryable: spec.retryable });
    expect(rows.get(code)?.meaning.length).toBeGreaterThan(20);
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
