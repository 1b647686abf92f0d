/**
 * Renders what the API's local sink wrote for a review (`{conclusion, title, summary,
 * annotations, ...}`, the check run it would have published): title and conclusion, the summary,
 * then one line per annotation. Unknown or missing fields are shown as absent, never guessed.
 */
export function renderSinkResult(result: unknown): string {
  const record = isRecord(result) ? result : {};
  const lines = [`${text(record.title, "review")}: ${text(record.conclusion, "unknown")}`, ""];
  const summary = text(record.summary, "");
  if (summary !== "") lines.push(summary.trimEnd(), "");
  const annotations = Array.isArray(record.annotations) ? record.annotations.filter(isRecord) : [];
  lines.push(`annotations (${annotations.length}):`);
  for (const annotation of annotations) {
    const start = annotation.start_line;
    const where = typeof start === "number" ? `${text(annotation.path, "?")}:${start}` : text(annotation.path, "?");
    const title = text(annotation.title, "");
    lines.push(
      `  ${where}  ${text(annotation.annotation_level, "notice")}  ${title === "" ? "" : `[${title}] `}${text(annotation.message, "").split("\n", 1)[0] ?? ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}
