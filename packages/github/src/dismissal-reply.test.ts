import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { describe, expect, it } from "vitest";
import { dismissalReason } from "./dismissal-reply.js";

describe("dismissalReason", () => {
  it.each([
    ["won't fix", "wont-fix"],
    ["Won't Fix", "wont-fix"],
    ["WONT FIX", "wont-fix"],
    ["wontfix", "wont-fix"],
    ["won't-fix", "wont-fix"],
    ["won\u2019t fix", "wont-fix"],
    ["  won't   fix.  ", "wont-fix"],
    ["won't fix!!", "wont-fix"],
    ["won't fix: the input is trusted", "wont-fix"],
    ["won't fix \u2014 later", "wont-fix"],
    ["wont fix - later", "wont-fix"],
    ["won't fix\r\nbecause the caller checks it", "wont-fix"],
    ["False positive", "false-positive"],
    ["false-positive.", "false-positive"],
    ["false positive; the value is clamped above", "false-positive"],
    ["false positive\n\nSee the test.", "false-positive"],
  ] as const)("%j dismisses (%s)", (body, reason) => {
    expect(dismissalReason(body)).toBe(reason);
  });

  it.each([
    ["a question", "false positive?"],
    ["a longer sentence", "won't fix this yet"],
    ["the phrase on the second line", "Thanks!\nwon't fix"],
    ["the phrase quoted", "> won't fix"],
    ["the phrase in Markdown", "**won't fix**"],
    ["a word glued on", "false positives"],
    ["won't without fix", "won't"],
    ["an empty body", ""],
    ["no body", null],
    ["a command", "@reviewbot won't fix"],
  ])("%s does not dismiss", (_name, body) => {
    expect(dismissalReason(body)).toBeNull();
  });

  it("reads a bounded first line: a body 4x as long costs at most linearly more (a growth ratio below 6, quadratic would be 16)", () => {
    const ratio = growthRatio(
      (body: string) => dismissalReason(body),
      (n) => `won't fix${" ".repeat(n)}x\n${"y".repeat(n)}`,
      10_000,
    );
    expect(ratio).toBeLessThan(6);
  });
});
