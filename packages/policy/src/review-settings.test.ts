import { describe, expect, it } from "vitest";
import { DEFAULT_AI_SKIP_RULES } from "./ai-skip-rules.js";
import { parseOperatorPolicy } from "./operator-policy.js";
import { parseRepoConfig } from "./repo-config.js";
import { automaticReviewSkip, DEFAULT_REVIEW_SETTINGS, MAX_SETTINGS_BYTES, parseReviewSettings, type ReviewSettings } from "./review-settings.js";

const parse = (value: unknown) => parseReviewSettings(JSON.stringify(value));

describe("parseReviewSettings: every key", () => {
  it("gives today's behaviour for an empty file", () => {
    expect(parse({})).toEqual({ settings: DEFAULT_REVIEW_SETTINGS, errors: [] });
  });

  it("reads every key", () => {
    const file = {
      aiSkip: { defaults: false, generatedMarker: false, paths: ["fixtures/**"] },
      aiMustRead: ["vendor/ours/**"],
      minInlineSeverity: "warning",
      reviewDrafts: true,
      automaticReview: false,
      skipLabels: ["No-Review", " wip ", "no-review"],
      botPullRequests: "review",
    };
    expect(parse(file)).toEqual({
      errors: [],
      settings: {
        aiSkip: { defaults: false, generatedMarker: false, paths: ["fixtures/**"], mustRead: ["vendor/ours/**"] },
        minInlineSeverity: "warning",
        reviewDrafts: true,
        automaticReview: false,
        // Trimmed, compared ignoring case (as GitHub compares label names), once each.
        skipLabels: ["no-review", "wip"],
        botPullRequests: "review",
      },
    });
  });

  it("fills what aiSkip leaves out with today's rules", () => {
    expect(parse({ aiSkip: { paths: ["gen/**"] } }).settings.aiSkip).toEqual({ ...DEFAULT_AI_SKIP_RULES, paths: ["gen/**"] });
  });
});

describe("parseReviewSettings: problems named, defaults kept for what is broken", () => {
  it.each([
    [{ reviewDraft: true }, "reviewDraft"],
    [{ aiSkip: { skipAll: true } }, "aiSkip.skipAll"],
    [{ aiSkip: { defaults: "no" } }, "aiSkip.defaults"],
    [{ aiSkip: { paths: "gen/**" } }, "aiSkip.paths"],
    [{ aiSkip: { paths: ["/etc/x"] } }, "aiSkip.paths[0]"],
    [{ aiSkip: { paths: ["a/../b"] } }, "aiSkip.paths[0]"],
    [{ aiSkip: { paths: ["src/[ab].ts"] } }, "aiSkip.paths[0]"],
    [{ aiSkip: { paths: Array.from({ length: 101 }, (_, i) => `f${i}`) } }, "aiSkip.paths"],
    [{ aiSkip: [] }, "aiSkip"],
    [{ aiMustRead: ["../x"] }, "aiMustRead[0]"],
    [{ minInlineSeverity: "info" }, "minInlineSeverity"],
    [{ reviewDrafts: "yes" }, "reviewDrafts"],
    [{ automaticReview: 0 }, "automaticReview"],
    [{ skipLabels: ["ok", ""] }, "skipLabels[1]"],
    [{ skipLabels: Array.from({ length: 101 }, (_, i) => `l${i}`) }, "skipLabels"],
    [{ botPullRequests: "always" }, "botPullRequests"],
    [{ "bad\nkey": 1 }, '["bad\\nkey"]'],
  ])("%j is reported as %s and the defaults apply", (file, path) => {
    const parsed = parse(file);
    expect(parsed.errors.map((error) => error.path)).toEqual([path]);
    expect(parsed.errors[0]?.message).toMatch(new RegExp(`^${path.replace(/[[\]\\.]/g, "\\$&")}: `));
    expect(parsed.settings).toEqual(DEFAULT_REVIEW_SETTINGS);
  });

  it("keeps the good keys beside a bad one, and never widens with the bad one", () => {
    const parsed = parse({ reviewDrafts: "true", botPullRequests: "reveiw", skipLabels: ["wip"], minInlineSeverity: "error" });
    expect(parsed.errors.map((error) => error.path)).toEqual(["reviewDrafts", "botPullRequests"]);
    expect(parsed.settings).toEqual({ ...DEFAULT_REVIEW_SETTINGS, skipLabels: ["wip"], minInlineSeverity: "error" });
    expect(parsed.settings.reviewDrafts).toBe(false);
    expect(parsed.settings.botPullRequests).toBe("skip");
  });

  it.each([
    ["{ not json", "(root): is not valid JSON"],
    ["[]", "(root): must be a JSON object of settings"],
    ["null", "(root): must be a JSON object of settings"],
    ['{"__proto__": {"reviewDrafts": true}}', "(root): must be a JSON object of settings"],
    [" ".repeat(MAX_SETTINGS_BYTES + 1), "(root): is at least"],
  ])("a document %#: one error, all defaults", (text, message) => {
    const parsed = parseReviewSettings(text);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.message.startsWith(message)).toBe(true);
    expect(parsed.settings).toEqual(DEFAULT_REVIEW_SETTINGS);
  });

  it("accepts a byte-order mark", () => {
    expect(parseReviewSettings('\uFEFF{"reviewDrafts": true}').settings.reviewDrafts).toBe(true);
  });
});

describe("automaticReviewSkip", () => {
  const pull = { draft: false, labels: [], authorBot: false };
  const with_ = (settings: Partial<ReviewSettings>): ReviewSettings => ({ ...DEFAULT_REVIEW_SETTINGS, ...settings });

  it.each([
    ["a plain PR is reviewed", with_({}), pull, null],
    ["a draft is skipped by default", with_({}), { ...pull, draft: true }, { reason: "draft" }],
    ["a draft is reviewed when allowed", with_({ reviewDrafts: true }), { ...pull, draft: true }, null],
    ["a skip label, ignoring case", with_({ skipLabels: ["no-review"] }), { ...pull, labels: ["bug", "No-Review"] }, { reason: "label", label: "No-Review" }],
    ["another label", with_({ skipLabels: ["no-review"] }), { ...pull, labels: ["bug"] }, null],
    ["a bot's PR is skipped by default", with_({}), { ...pull, authorBot: true }, { reason: "bot-author" }],
    ["a bot's PR is reviewed when allowed", with_({ botPullRequests: "review" }), { ...pull, authorBot: true }, null],
    ["automatic reviews off", with_({ automaticReview: false }), pull, { reason: "automatic-review-off" }],
  ])("%s", (_, settings, of, expected) => {
    expect(automaticReviewSkip(settings, of)).toEqual(expected);
  });
});

describe("parseRepoConfig: aiSkip has moved", () => {
  it("names the key and applies nothing of it; the helpers still load", () => {
    const config = parseRepoConfig(JSON.stringify({ helpers: [], aiSkip: { paths: ["x/**"] } }), parseOperatorPolicy({}));
    expect(config).toEqual({ helpers: [], errors: [{ path: "aiSkip", message: "aiSkip: has moved to .ai/review-config.json and is not applied here" }] });
  });
});
