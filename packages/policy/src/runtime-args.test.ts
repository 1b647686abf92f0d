import { describe, expect, it } from "vitest";
import { buildHelperArgv, type ArgsPolicy } from "./runtime-args.js";

const helper: ArgsPolicy = { name: "lint", command: ["flake8", "--max-line-length=100"], allowArgs: true, maxArgs: 3, argsSeparator: true };
const unseparated: ArgsPolicy = { ...helper, argsSeparator: false };
const MENTIONS_AI = "mentions .ai: runtime arguments may not name .ai/ (the base config names the trusted files it runs)";

describe("buildHelperArgv", () => {
  it.each([
    ["no arguments: the command alone, without --", helper, [], ["flake8", "--max-line-length=100"]],
    ["no arguments to a helper that allows none", { ...helper, allowArgs: false }, [], ["flake8", "--max-line-length=100"]],
    ["a path, after --", helper, ["src/a.py"], ["flake8", "--max-line-length=100", "--", "src/a.py"]],
    ["an option-looking argument, made an operand by --", helper, ["-rf", "--output=/x"], ["flake8", "--max-line-length=100", "--", "-rf", "--output=/x"]],
    ["a literal --, after ours", helper, ["--"], ["flake8", "--max-line-length=100", "--", "--"]],
    ["max_args arguments", helper, ["a", "b", "c"], ["flake8", "--max-line-length=100", "--", "a", "b", "c"]],
    ["200 characters", helper, ["x".repeat(200)], ["flake8", "--max-line-length=100", "--", "x".repeat(200)]],
    ["non-ASCII text", helper, ["ünïcödé 日本"], ["flake8", "--max-line-length=100", "--", "ünïcödé 日本"]],
    ["a path, without separator", unseparated, ["src/a.py"], ["flake8", "--max-line-length=100", "src/a.py"]],
    ["names that only contain .ai", helper, [".aiignore", "x.ai.json"], ["flake8", "--max-line-length=100", "--", ".aiignore", "x.ai.json"]],
  ])("accepts %s", (_label, policy, args, expected) => {
    expect(buildHelperArgv(policy, args)).toEqual(expected);
  });

  it.each([
    [
      "arguments to a helper that allows none",
      { ...helper, allowArgs: false },
      ["x"],
      'helper "lint": args: runtime arguments are not allowed (allow_args is false)',
    ],
    ["more than max_args", helper, ["a", "b", "c", "d"], 'helper "lint": args: 4 arguments given, at most 3 allowed (max_args)'],
    [
      "more than 32, whatever max_args says",
      { ...helper, maxArgs: 100 },
      Array<string>(33).fill("a"),
      'helper "lint": args: 33 arguments given, at most 32 allowed (max_args)',
    ],
    ["201 characters", helper, ["x".repeat(201)], 'helper "lint": args[0]: is 201 characters long, at most 200 allowed'],
    ["a NUL byte", helper, ["ok", "a\0b"], 'helper "lint": args[1]: "a\\u0000b" contains a NUL byte'],
    ["a newline", helper, ["a\nb"], 'helper "lint": args[0]: "a\\nb" contains the control character U+000A'],
    ["an escape sequence", helper, ["\u001b]0;x\u0007"], 'helper "lint": args[0]: "\\u001b]0;x\\u0007" contains the control character U+001B'],
    ["a bidi override", helper, ["a\u202eb"], 'helper "lint": args[0]: "a\\u202eb" contains the control character U+202E'],
    ["a number", helper, [42], 'helper "lint": args[0]: expected a string, got number'],
    ["null", helper, ["a", null], 'helper "lint": args[1]: expected a string, got null'],
    ["an object", helper, [{ toString: () => "-rf" }], 'helper "lint": args[0]: expected a string, got object'],
    [
      "an option without separator",
      unseparated,
      ["-rf"],
      'helper "lint": args[0]: "-rf" begins with "-" and could be read as an option (args_separator is false)',
    ],
    [
      "a long option without separator",
      unseparated,
      ["ok", "--output=/etc/x"],
      'helper "lint": args[1]: "--output=/etc/x" begins with "-" and could be read as an option (args_separator is false)',
    ],
    [
      "a lone dash without separator",
      unseparated,
      ["-"],
      'helper "lint": args[0]: "-" begins with "-" and could be read as an option (args_separator is false)',
    ],
  ])("refuses %s", (_label, policy, args, message) => {
    expect(() => buildHelperArgv(policy, args)).toThrow(expect.objectContaining({ code: "POLICY_DENIED", message }));
  });

  // Which trusted files run is the base config's choice; from a cwd these could reach a PR's .ai.
  it.each([".ai/x", "./.ai/x", "src/.ai/x", "../.ai/x", ".ai", ".AI/x", "--config=.ai/x", "/work/.ai/x", ".ai/../x"])(
    "refuses %j, which mentions .ai",
    (arg) => {
      const message = `helper "lint": args[1]: ${JSON.stringify(arg)} ${MENTIONS_AI}`;
      expect(() => buildHelperArgv(helper, ["ok", arg])).toThrow(expect.objectContaining({ code: "POLICY_DENIED", message }));
    },
  );
});
