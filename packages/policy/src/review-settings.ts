import { z } from "zod";
import type { SettingsSkipped } from "@reviewbot/contracts/published-report";
import { Severity } from "@reviewbot/contracts/severity";
import { configError, formatPath, fromZodIssues, quote, requiredMessage, ROOT_PATH, WithoutProtoKey, type ConfigError } from "./config-error.js";
import { AiSkipSpec, DEFAULT_AI_SKIP_RULES, MAX_SKIP_GLOBS, type AiSkipRules } from "./ai-skip-rules.js";
import { Glob } from "./glob.js";

/** Where the maintainers' settings live in the trusted `.ai/` (never the PR's copy). */
export const REVIEW_SETTINGS_PATH = ".ai/review-config.json";
/** The largest settings file accepted, in UTF-8 bytes. */
export const MAX_SETTINGS_BYTES = 64 * 1024;
/** The most labels `skipLabels` may list (GitHub allows 100 labels on one PR). */
export const MAX_SKIP_LABELS = 100;

/** The maintainers' settings of one repository, each key checked on its own. */
export interface ReviewSettings {
  /** Which changed files the AI review leaves out, and which it reads anyway (`aiSkip` + `aiMustRead`). */
  readonly aiSkip: AiSkipRules;
  /** The least severe finding that becomes an inline comment; less severe ones stay in the check run. */
  readonly minInlineSeverity: Severity;
  /** Whether an automatic review runs on a draft PR. */
  readonly reviewDrafts: boolean;
  /** Whether a PR is reviewed when it is opened or pushed to; `false`: only when a maintainer asks. */
  readonly automaticReview: boolean;
  /** A PR carrying one of these labels (compared ignoring case) is not reviewed automatically. */
  readonly skipLabels: readonly string[];
  /** Whether PRs opened by a GitHub App (Dependabot, Renovate…) are reviewed automatically. */
  readonly botPullRequests: "review" | "skip";
}

/** The settings of a repository whose `.ai/` has no settings file: today's behaviour. */
export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = {
  aiSkip: DEFAULT_AI_SKIP_RULES,
  minInlineSeverity: "notice",
  reviewDrafts: false,
  automaticReview: true,
  skipLabels: [],
  botPullRequests: "skip",
};

// One schema per key, so that a bad key costs only itself; each default above is the narrow side
// of its key (drafts and bots not reviewed), so a broken value never makes more run.
const KEYS = {
  aiSkip: AiSkipSpec,
  aiMustRead: z.array(Glob).max(MAX_SKIP_GLOBS, `has more than ${MAX_SKIP_GLOBS} globs`),
  minInlineSeverity: Severity,
  reviewDrafts: z.boolean(),
  automaticReview: z.boolean(),
  skipLabels: z.array(z.string().trim().min(1).max(100)).max(MAX_SKIP_LABELS, `has more than ${MAX_SKIP_LABELS} labels`),
  botPullRequests: z.enum(["review", "skip"]),
} as const;
type Keys = { -readonly [K in keyof typeof KEYS]?: z.output<(typeof KEYS)[K]> };

/** The settings in force and one error per problem, each naming its key. */
export interface ParsedReviewSettings {
  readonly settings: ReviewSettings;
  readonly errors: readonly ConfigError[];
}

/**
 * Parses `.ai/review-config.json` as it is on the trusted commit. Never throws: a file too large,
 * not JSON or not an object yields the defaults and one error; an unknown key is reported by name
 * (`reviewDraft: unknown key`); a key with a bad value is reported by name and its default applies,
 * while the other keys keep their values.
 */
export function parseReviewSettings(text: string): ParsedReviewSettings {
  const document = parseDocument(text);
  if ("error" in document) return { settings: DEFAULT_REVIEW_SETTINGS, errors: [document.error] };
  const errors: ConfigError[] = [];
  const keys: Keys = {};
  for (const [key, raw] of Object.entries(document.value)) {
    if (!Object.hasOwn(KEYS, key)) {
      errors.push(configError(formatPath([key]), "unknown key"));
      continue;
    }
    const schema = KEYS[key as keyof typeof KEYS];
    const parsed = schema.safeParse(raw, { error: requiredMessage });
    if (parsed.success) Object.assign(keys, { [key]: parsed.data });
    else errors.push(...fromZodIssues(parsed.error.issues, [key]));
  }
  return { settings: settingsOf(keys), errors };
}

function settingsOf(keys: Keys): ReviewSettings {
  const defaults = DEFAULT_REVIEW_SETTINGS;
  return {
    aiSkip: { ...(keys.aiSkip ?? defaults.aiSkip), mustRead: keys.aiMustRead ?? defaults.aiSkip.mustRead },
    minInlineSeverity: keys.minInlineSeverity ?? defaults.minInlineSeverity,
    reviewDrafts: keys.reviewDrafts ?? defaults.reviewDrafts,
    automaticReview: keys.automaticReview ?? defaults.automaticReview,
    skipLabels: [...new Set((keys.skipLabels ?? defaults.skipLabels).map((label) => label.toLowerCase()))],
    botPullRequests: keys.botPullRequests ?? defaults.botPullRequests,
  };
}

function parseDocument(text: string): { readonly value: Record<string, unknown> } | { readonly error: ConfigError } {
  // A string never has more UTF-16 units than UTF-8 bytes, so the cheap test can come first.
  const bytes = text.length > MAX_SETTINGS_BYTES ? text.length : new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_SETTINGS_BYTES) return { error: configError(ROOT_PATH, `is at least ${bytes} bytes; at most ${MAX_SETTINGS_BYTES} are allowed`) };
  let json: unknown;
  try {
    // Editors on Windows save a byte-order mark, which JSON.parse refuses.
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { error: configError(ROOT_PATH, `is not valid JSON: ${quote(reason, 200)}`) };
  }
  const parsed = WithoutProtoKey.pipe(z.record(z.string(), z.unknown())).safeParse(json);
  if (!parsed.success) return { error: configError(ROOT_PATH, "must be a JSON object of settings") };
  return { value: parsed.data };
}

/** The PR an automatic review is about, as the api saw it in the webhook it sealed into the job. */
export interface AutomaticReviewOf {
  readonly draft: boolean;
  readonly labels: readonly string[];
  readonly authorBot: boolean;
}

/**
 * Whether `settings` skip an automatic review (opened, pushed, reopened, ready for review) of
 * `pull`: automatic reviews off, a draft, a skip label, a bot's PR, in that order. A maintainer's
 * explicit request (a comment command, a check run re-run) is never skipped: it has no `pull`.
 */
export function automaticReviewSkip(settings: ReviewSettings, pull: AutomaticReviewOf): SettingsSkipped | null {
  if (!settings.automaticReview) return { reason: "automatic-review-off" };
  if (pull.draft && !settings.reviewDrafts) return { reason: "draft" };
  const label = pull.labels.find((name) => settings.skipLabels.includes(name.toLowerCase()));
  if (label !== undefined) return { reason: "label", label };
  if (pull.authorBot && settings.botPullRequests === "skip") return { reason: "bot-author" };
  return null;
}
