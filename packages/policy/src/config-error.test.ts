import { describe, expect, it } from "vitest";
import { configError, formatPath, quote } from "./config-error.js";

describe("quote", () => {
  it.each([
    ["a plain value", "flake8", '"flake8"'],
    ["a newline (report line forging)", "a\nb", '"a\\nb"'],
    ["an escape sequence (terminal control)", "\u001b[31m", '"\\u001b[31m"'],
    ["DEL, which JSON.stringify leaves raw", "a\u007fb", '"a\\u007fb"'],
    ["a C1 control", "a\u009bb", '"a\\u009bb"'],
    ["a line separator", "a\u2028b", '"a\\u2028b"'],
    ["a bidi override (Trojan Source)", "a\u202eb", '"a\\u202eb"'],
    ["a bidi isolate", "a\u2066b", '"a\\u2066b"'],
    ["a NUL byte", "a\0b", '"a\\u0000b"'],
  ])("escapes %s", (_label, value, expected) => {
    expect(quote(value)).toBe(expected);
  });

  it("cuts a long value to 80 characters so a hostile config cannot flood a report", () => {
    expect(quote("x".repeat(100_000))).toBe(`"${"x".repeat(80)}…"`);
    expect(quote("x".repeat(300), 200)).toBe(`"${"x".repeat(200)}…"`);
  });
});

describe("formatPath", () => {
  it.each([
    [[], "(root)"],
    [["helpers"], "helpers"],
    [["helpers", 1, "command", 0], "helpers[1].command[0]"],
    [["helpers", 0, "severity", "no-undef"], 'helpers[0].severity["no-undef"]'],
    [["helpers", 0, "severity", "E501"], "helpers[0].severity.E501"],
    [["helpers", 0, "a\nb"], 'helpers[0]["a\\nb"]'],
    [["images", "__proto__"], "images.__proto__"],
  ])("formats %j as %s", (segments, expected) => {
    expect(formatPath(segments)).toBe(expected);
  });
});

describe("configError", () => {
  it("puts the path in front of the reason", () => {
    expect(configError("helpers[2].command[0]", '"../x.sh" leaves .ai/ after normalisation')).toEqual({
      path: "helpers[2].command[0]",
      message: 'helpers[2].command[0]: "../x.sh" leaves .ai/ after normalisation',
    });
  });
});
