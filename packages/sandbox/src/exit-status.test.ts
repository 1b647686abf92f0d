import { describe, expect, it } from "vitest";
import { exitStatus } from "./exit-status.js";

describe("exitStatus", () => {
  it.each([
    [0, { exitCode: 0, signal: null }],
    [1, { exitCode: 1, signal: null }],
    [128, { exitCode: 128, signal: null }],
    [137, { exitCode: null, signal: "SIGKILL" }],
    [143, { exitCode: null, signal: "SIGTERM" }],
    [255, { exitCode: 255, signal: null }],
  ])("maps %i", (code, expected) => {
    expect(exitStatus(code)).toEqual(expected);
  });
});
