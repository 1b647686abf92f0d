import { z } from "zod";
import type { TokenUsage } from "@reviewbot/contracts/chat";

/**
 * A model's price in microdollars (millionths of a US dollar) per million tokens: the operator's
 * "USD per million tokens" × 10^6, held as integers so that sums are exact.
 */
export interface ModelPrice {
  readonly inputMicrodollarsPerMillion: number;
  readonly outputMicrodollarsPerMillion: number;
}

/** Prices by model name; a model without one costs nothing (a local model). */
export type LlmPrices = ReadonlyMap<string, ModelPrice>;

/** A US-dollar amount as the settings take it: up to 9 digits, then up to 6 decimals. */
const USD = /^(\d{1,9})(?:\.(\d{1,6}))?$/;

/** `"2.5"` → 2_500_000 microdollars; null when the text is not a plain dollar amount. */
export function parseUsdMicrodollars(text: string): number | null {
  const match = USD.exec(text.trim());
  if (match === null) return null;
  const [, whole = "0", fraction = ""] = match;
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0"));
}

/**
 * What one call cost, in whole microdollars, rounded up (a fraction of a microdollar is still
 * spent): tokens × price per million ÷ 10^6, for input and output together, in exact integer
 * arithmetic. 0 for a model without a price.
 */
export function priceOf(usage: TokenUsage, model: string, prices: LlmPrices): number {
  const price = prices.get(model);
  if (price === undefined) return 0;
  const scaled =
    BigInt(usage.inputTokens) * BigInt(price.inputMicrodollarsPerMillion) + BigInt(usage.outputTokens) * BigInt(price.outputMicrodollarsPerMillion);
  return Number((scaled + 999_999n) / 1_000_000n);
}

/**
 * `REVIEWBOT_LLM_PRICES`: `model=in/out` entries (USD per million input / output tokens), comma
 * separated, e.g. `gpt-4o=2.5/10,claude-sonnet-4-5=3/15`. The model is everything before the last
 * `=` (so `openai/gpt-4o=2.5/10` works); empty entries are ignored; a model named twice is an error.
 * Errors name the entry's position, never a value.
 */
export const LlmPricesSetting = z
  .string()
  .default("")
  .transform((text, ctx): LlmPrices => {
    const prices = new Map<string, ModelPrice>();
    const entries = text.split(",").map((entry) => entry.trim());
    for (const [position, entry] of entries.entries()) {
      if (entry === "") continue;
      const equals = entry.lastIndexOf("=");
      const model = entry.slice(0, Math.max(equals, 0)).trim();
      const [input, output, extra] = entry.slice(equals + 1).split("/");
      const inputPrice = input === undefined ? null : parseUsdMicrodollars(input);
      const outputPrice = output === undefined ? null : parseUsdMicrodollars(output);
      if (equals <= 0 || model === "" || inputPrice === null || outputPrice === null || extra !== undefined) {
        ctx.addIssue({ code: "custom", message: `entry ${position + 1} must be model=input/output in USD per million tokens (e.g. gpt-4o=2.5/10)` });
        return z.NEVER;
      }
      if (prices.has(model)) {
        ctx.addIssue({ code: "custom", message: `entry ${position + 1} prices a model an earlier entry prices` });
        return z.NEVER;
      }
      prices.set(model, { inputMicrodollarsPerMillion: inputPrice, outputMicrodollarsPerMillion: outputPrice });
    }
    return prices;
  });
