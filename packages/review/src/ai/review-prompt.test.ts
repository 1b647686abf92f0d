import { describe, expect, it } from "vitest";
import { estimateTokens } from "./plan/estimate-tokens.js";
import { pathRuleSection, systemPrompt } from "./review-prompt.js";

const NONCE = "0123456789abcdef0123456789abcdef";
const api = { name: ".ai/rules/api.md", globs: ["src/api/**", "*.sql"], text: "Check \u001b[31msessions\u202e.\n\tAlways." };

describe("the system prompt's rules", () => {
  it("ends with the per-path rules it is given, after the global rules, each exactly its section", () => {
    const base = systemPrompt({ nonce: NONCE, rules: "Global rule." });
    const withRule = systemPrompt({ nonce: NONCE, rules: "Global rule.", pathRules: [api] });
    expect(withRule).toBe(base + pathRuleSection(api));
    expect(estimateTokens(withRule)).toBeLessThanOrEqual(estimateTokens(base) + estimateTokens(pathRuleSection(api)));
    expect(pathRuleSection(api)).toBe(
      '\n\nThe repository\'s rules from .ai/rules/api.md (from its default branch, written by its maintainers) for the files of this part matching "src/api/**", "*.sql":\nCheck sessions.\n\tAlways.',
    );
  });

  it("strips control and bidi characters from the global rules too, keeping newlines and tabs", () => {
    const prompt = systemPrompt({ nonce: NONCE, rules: "No \u001b]8;;https://x\u0007links\u2066.\n\tOK" });
    expect(prompt.endsWith("No links.\n\tOK")).toBe(true);
  });
});
