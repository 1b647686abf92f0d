import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { PR_COMMANDS, parsePrCommand } from "./pr-command.js";

const SLUG = "reviewbot";

describe("parsePrCommand", () => {
  it.each([
    ["@reviewbot review", "review"],
    ["@reviewbot full review", "full review"],
    ["@reviewbot pause", "pause"],
    ["@reviewbot resume", "resume"],
    ["@reviewbot resolve", "resolve"],
    ["@reviewbot summary", "summary"],
    ["@reviewbot help", "help"],
    ["@ReviewBot FULL Review", "full review"],
    ["  @reviewbot   full \t review  ", "full review"],
    ["@reviewbot review\r\nplease, and thanks", "review"],
    ["@reviewbot pause\n@reviewbot resume", "pause"],
    ["@reviewbot", "help"],
    ["@reviewbot ignore", "help"],
    ["@reviewbot review now", "help"],
    [`@reviewbot ${"x".repeat(100)}`, "help"],
  ])("%j is %s", (body, command) => {
    expect(parsePrCommand(body, SLUG)).toBe(command);
  });

  it.each([
    ["", "empty"],
    ["/review", "the other command"],
    ["please @reviewbot review", "the mention not first on the line"],
    ["Thanks!\n@reviewbot review", "the command not on the first line"],
    ["@reviewbot-dev review", "another App whose slug starts with ours"],
    ["@reviewbot[bot] review", "our bot user's login"],
    ["@other review", "another slug"],
    ["@reviewbotreview", "no space after the mention"],
  ])("%j is no command (%s)", (body) => {
    expect(parsePrCommand(body, SLUG)).toBeNull();
  });

  it("names every command once, each with a one-line description", () => {
    const names = PR_COMMANDS.map((command) => command.name);
    expect(new Set(names).size).toBe(names.length);
    for (const command of PR_COMMANDS) expect(command.description).toMatch(/^[^\n]{10,120}$/);
  });

  it("takes time linear in the comment's size, whatever its first line", () => {
    const longLine = (n: number): string => `@reviewbot ${"review ".repeat(n)}`;
    const manyLines = (n: number): string => `@reviewbot review\n${"@reviewbot pause\n".repeat(n)}`;
    for (const make of [longLine, manyLines]) {
      expect(growthRatio((body: string) => parsePrCommand(body, SLUG), make, 10_000)).toBeLessThan(8);
    }
  });
});
