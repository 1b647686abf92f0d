import type { PullDiff } from "@reviewbot/overlay/pull-diff";
import type { OverlayResult } from "@reviewbot/overlay/trusted-overlay";

export interface CheckoutSummary {
  readonly repo: string;
  readonly base: { readonly ref: string; readonly sha: string };
  readonly head: { readonly ref: string; readonly sha: string };
  readonly overlay: OverlayResult;
  readonly diff: PullDiff;
}

/** JSON for machines (one document), or a short report for people. */
export function renderCheckout(summary: CheckoutSummary, format: "text" | "json"): string {
  if (format === "json") return `${JSON.stringify(summary, null, 2)}\n`;
  const { overlay, diff } = summary;
  const lines = [
    `repository  ${summary.repo}`,
    `base        ${summary.base.ref} ${summary.base.sha}`,
    `head        ${summary.head.ref} ${summary.head.sha}`,
    `.ai/        ${describeOverlay(overlay)}`,
    ...overlay.files.map((file) => `              ${file}`),
    ...overlay.skipped.map((skip) => `              skipped ${skip.path}: ${skip.reason}`),
    `changes     ${diff.files.length} file(s) since ${diff.fromSha.slice(0, 12)}`,
    ...diff.files.map((file) => {
      const added = file.addedLines.map((r) => (r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`)).join(",");
      const note = file.path.startsWith(".ai/") ? "  (PR change ignored: .ai/ comes from the trusted commit)" : "";
      return `  ${file.status.padEnd(12)} ${JSON.stringify(file.path)}${added === "" ? "" : ` added lines ${added}`}${note}`;
    }),
  ];
  return `${lines.join("\n")}\n`;
}

function describeOverlay(overlay: OverlayResult): string {
  const at = overlay.commit === null ? "the trusted commit" : `${overlay.commit.ref} ${overlay.commit.sha}`;
  if (overlay.source === "ref") return `from the head of ${at} (${overlay.files.length} file(s)); the PR's .ai/ was not used`;
  if (overlay.source === "base") return `from the base commit ${at} (${overlay.files.length} file(s)); the PR's .ai/ was not used`;
  if (overlay.source === "absent") return `none: ${at} has no .ai/`;
  return `none: failed closed (${overlay.reason ?? "the trusted commit is unreadable"})`;
}
