import type { PublishedReport, SettingsSkipped } from "@reviewbot/contracts/published-report";
import type { RenderedCheckRun } from "./render-check-run.js";
import { sanitiseCodeSpan, sanitiseMarkdown } from "./sanitise-markdown.js";

// What each reason says, and the setting of `.ai/review-config.json` that decided it.
const REASONS = {
  "automatic-review-off": { title: "automatic reviews are off", setting: "automaticReview" },
  draft: { title: "draft pull request", setting: "reviewDrafts" },
  "bot-author": { title: "pull request opened by an app", setting: "botPullRequests" },
  label: { title: "skip label", setting: "skipLabels" },
} as const;

/**
 * The check run of an automatic review the repository's trusted settings skipped (peers: "Review
 * skipped: draft detected"): conclusion `skipped`, the reason and the setting that decided it, how
 * to review anyway, and the settings' configuration errors (a broken key is shown even when the
 * others skip the review). The label is a maintainer's word checked against the api's own job,
 * escaped all the same.
 */
export function renderSkippedReview(report: PublishedReport, skipped: SettingsSkipped, headSha: string): RenderedCheckRun {
  const { title, setting } = REASONS[skipped.reason];
  const detail = skipped.reason === "label" ? ` ${sanitiseCodeSpan(skipped.label)}` : "";
  const summary = [
    `The automatic review of \`${headSha}\` was skipped: ${title}${detail} (\`${setting}\` in the default branch's \`.ai/review-config.json\`).`,
    "A maintainer's review command reviews this pull request anyway.",
  ];
  if (report.configErrors.length > 0) {
    summary.push("", "### Configuration errors", ...report.configErrors.map((error) => `- ${sanitiseMarkdown(error)}`));
  }
  return { conclusion: "skipped", title: `Review skipped: ${title}`, summary: summary.join("\n"), annotations: [] };
}
