import { describe, expect, it } from "vitest";
import { parseSandboxMode } from "./sandbox-mode.js";

describe("parseSandboxMode", () => {
  it.each([
    [undefined, "require"],
    ["require", "require"],
    ["auto", "auto"],
    ["off", "off"],
  ])("reads %j as %s", (value, mode) => {
    expect(parseSandboxMode(value)).toBe(mode);
  });

  it.each([
    ["REQUIRE", '"REQUIRE"'],
    [" auto", '" auto"'],
    ["auto ", '"auto "'],
    ["", '""'],
    ["on", '"on"'],
    ["true", '"true"'],
    ["false", '"false"'],
    ["1", '"1"'],
    ["none", '"none"'],
    ["Off", '"Off"'],
    ["auto\n", '"auto\\n"'],
  ])("refuses %j instead of falling back", (value, quoted) => {
    expect(() => parseSandboxMode(value)).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: `REVIEWBOT_SANDBOX: ${quoted} is not a sandbox mode; allowed values: require, auto, off`,
      }),
    );
  });
});
