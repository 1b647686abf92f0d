import { describe, expect, it } from "vitest";
import { LlmPricesSetting, parseUsdMicrodollars, priceOf } from "./llm-prices.js";

describe("parseUsdMicrodollars", () => {
  it.each([
    ["2.5", 2_500_000],
    ["0.15", 150_000],
    ["10", 10_000_000],
    ["0.000001", 1],
    [" 3 ", 3_000_000],
  ])("%s → %i", (text, microdollars) => {
    expect(parseUsdMicrodollars(text)).toBe(microdollars);
  });

  it.each(["", "-1", "1e3", "0.0000001", "$2", "1,5", "1234567890"])("refuses %j", (text) => {
    expect(parseUsdMicrodollars(text)).toBeNull();
  });
});

describe("priceOf", () => {
  const prices = LlmPricesSetting.parse("gpt-4o=2.5/10,openai/gpt-4o-mini=0.15/0.6");

  it("parses entries, the model being everything before the last =", () => {
    expect([...prices.keys()]).toEqual(["gpt-4o", "openai/gpt-4o-mini"]);
    expect(prices.get("openai/gpt-4o-mini")).toEqual({ inputMicrodollarsPerMillion: 150_000, outputMicrodollarsPerMillion: 600_000 });
  });

  it("prices input and output in whole microdollars", () => {
    // 1M in × $2.50 + 100k out × $10 = $3.50
    expect(priceOf({ inputTokens: 1_000_000, outputTokens: 100_000 }, "gpt-4o", prices)).toBe(3_500_000);
    // 1000 × 0.15 + 1000 × 0.6 = 750 microdollars exactly (no float drift to 751)
    expect(priceOf({ inputTokens: 1000, outputTokens: 1000 }, "openai/gpt-4o-mini", prices)).toBe(750);
  });

  it("rounds a fraction of a microdollar up", () => {
    expect(priceOf({ inputTokens: 1, outputTokens: 0 }, "openai/gpt-4o-mini", prices)).toBe(1);
    expect(priceOf({ inputTokens: 0, outputTokens: 0 }, "gpt-4o", prices)).toBe(0);
  });

  it("stays exact for large counts", () => {
    const big = LlmPricesSetting.parse("m=999999.999999/999999.999999");
    expect(priceOf({ inputTokens: 1_000_000_000, outputTokens: 0 }, "m", big)).toBe(999_999_999_999_000);
  });

  it("costs nothing for a model without a price, whatever its name", () => {
    expect(priceOf({ inputTokens: 5000, outputTokens: 5000 }, "llama3", prices)).toBe(0);
    expect(priceOf({ inputTokens: 5000, outputTokens: 5000 }, "constructor", prices)).toBe(0);
  });

  it.each([
    ["a missing =", "gpt-4o 2.5/10", /entry 1 must be/],
    ["one price", "a=1,gpt-4o=2.5", /entry 1 must be/],
    ["three prices", "gpt-4o=1/2/3", /entry 1 must be/],
    ["no model", "=1/2", /entry 1 must be/],
    ["a model twice", "a=1/2, a=3/4", /entry 2 prices a model an earlier entry prices/],
  ])("refuses %s", (_name, text, message) => {
    expect(() => LlmPricesSetting.parse(text)).toThrow(message);
  });
});
