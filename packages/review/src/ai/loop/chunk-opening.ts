import type { Finding } from "../../findings/finding.js";
import type { Chunk } from "../plan/plan-chunks.js";
import type { UntrustedKind } from "../untrusted-text.js";

/** How much of each kind of PR text the opening message shows (characters, before wrapping). */
const CAPS = { title: 300, body: 4000, commits: 4000, context: 8000, findings: 8000 } as const;

export interface OpeningFacts {
  readonly part: number;
  readonly parts: number;
  /** The last review's head when this part shows only what changed since it. */
  readonly since: string | null;
  readonly pullRequest?: { readonly number?: number; readonly title?: string; readonly body?: string };
  readonly context: string | null;
  /** The PR's commit messages, newest first. */
  readonly commits: string;
  /** The helpers' findings on this chunk's files (already sanitised by the pipeline: still untrusted). */
  readonly findings: readonly Finding[];
}

type Wrap = (kind: UntrustedKind, label: string, text: string, maxChars?: number) => string;

/**
 * The first user message of one chunk's loop: our framing in our words, and every PR-derived
 * string (title, description, commit messages, context-script output, helper findings, the diff) inside its own
 * envelope, each cut before it is wrapped.
 */
export function chunkOpening(chunk: Chunk, facts: OpeningFacts, wrap: Wrap): string {
  const pr = facts.pullRequest;
  const parts = [
    `Review part ${facts.part} of ${facts.parts} of pull request${pr?.number === undefined ? "" : ` #${pr.number}`}: ${chunk.files.length} file(s).`,
    ...(facts.since === null
      ? []
      : [
          `You reviewed this PR before, at commit ${facts.since}. The diff below shows only what changed since then; your earlier comments stand. Comment only on these changes (get_diff shows the whole PR when you need it).`,
        ]),
    ...(pr?.title === undefined ? [] : ["The PR's title:", wrap("title", "title", pr.title, CAPS.title)]),
    ...(pr?.body === undefined || pr.body === "" ? [] : ["The PR's description:", wrap("body", "description", pr.body, CAPS.body)]),
    ...(facts.commits === "" ? [] : ["The PR's commit messages:", wrap("commit-message", "commits", facts.commits, CAPS.commits)]),
    ...(facts.context === null || facts.context === ""
      ? []
      : ["What the repository's context script printed:", wrap("context-script-output", "context", facts.context, CAPS.context)]),
  ];
  const paths = new Set(chunk.files.map((file) => file.path));
  const found = facts.findings.filter((finding) => paths.has(finding.path));
  if (found.length > 0) {
    const lines = found.map((f) => `${f.path}:${f.line ?? "-"}: ${f.severity} ${f.helper}${f.rule === null ? "" : `/${f.rule}`}: ${f.message}`);
    parts.push(
      "The repository's helpers already reported these (they are published as they are; do not repeat them):",
      wrap("helper-output", "helper findings", lines.join("\n"), CAPS.findings),
    );
  }
  parts.push("The diff of this part:");
  for (const file of chunk.files) {
    // The planner already sized the chunk to the context: the envelope must not cut it again.
    parts.push(wrap("diff", file.path, file.patch, file.patch.length));
    if (file.note !== null) parts.push(`(note: ${file.note})`);
  }
  parts.push("Look at what you need with the tools, then call submit_review.");
  return parts.join("\n\n");
}
