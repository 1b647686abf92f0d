import { describe, expect, it } from "vitest";
import { sarifToolSource } from "./sarif-tool-source.js";

const run = (name: unknown) => ({ tool: { driver: { name } } });

describe("sarifToolSource", () => {
  it("is the tool's name when it is a helper name", () => {
    expect(sarifToolSource(run("CodeQL"))).toBe("CodeQL");
    expect(sarifToolSource(run("ruff"))).toBe("ruff");
  });

  it("turns what a helper name cannot hold into one hyphen", () => {
    expect(sarifToolSource(run("Semgrep OSS"))).toBe("Semgrep-OSS");
    expect(sarifToolSource(run("ESLint  (v9)"))).toBe("ESLint-v9");
  });

  it("drops a leading non-letter and cuts a long name to 64 characters", () => {
    expect(sarifToolSource(run("42 ::tool"))).toBe("tool");
    expect(sarifToolSource(run(`t${"x".repeat(10_000)}`))).toHaveLength(64);
  });

  it("gives nothing for a name that leaves nothing, a name that is not a string, or no tool", () => {
    expect(sarifToolSource(run("\u202e 123 ::"))).toBeUndefined();
    expect(sarifToolSource(run(7))).toBeUndefined();
    expect(sarifToolSource({})).toBeUndefined();
  });
});
