import type { Difference } from "./compare-results.js";
import { costRecallSvg } from "./cost-recall-svg.js";
import type { EvalResult } from "./eval-result.js";

export type EvalFormat = "text" | "json" | "markdown";

const figure = (value: number | null, digits = 2): string => (value === null ? "—" : value.toFixed(digits));
const OVERALL: readonly (readonly [keyof EvalResult["overall"], string, number])[] = [
  ["precision", "precision", 2],
  ["recall", "recall", 2],
  ["f05", "F0.5", 2],
  ["falsePositiveRate", "false-positive rate (clean)", 2],
  ["commentsPerPr", "comments per PR", 2],
  ["anchorValidity", "anchor validity", 2],
  ["tokensPerPr", "tokens per PR", 0],
  ["costPerPr", "cost per PR (USD)", 4],
  ["p50Ms", "wall time p50 (ms)", 0],
  ["p95Ms", "wall time p95 (ms)", 0],
];

/**
 * The result as a terminal table, JSON, or a Markdown report; with an earlier result, the
 * differences follow (and, in Markdown, a plot of cost per PR against recall of both runs).
 */
export function renderEval(
  result: EvalResult,
  format: EvalFormat,
  compared?: { readonly before: EvalResult; readonly differences: readonly Difference[] },
): string {
  if (format === "json") return `${JSON.stringify(result, null, 2)}\n`;
  const md = format === "markdown";
  const row = (cells: readonly string[]): string =>
    md
      ? `| ${cells.join(" | ")} |`
      : cells
          .map((cell, index) => cell.padEnd(index === 0 ? 28 : 10))
          .join(" ")
          .trimEnd();
  const spread = (name: "precision" | "recall" | "f05"): string => {
    const value = result.spread[name];
    return value === null ? "—" : `${value.min.toFixed(2)}–${value.max.toFixed(2)} (sd ${value.stdev.toFixed(3)})`;
  };
  const lines = [
    md ? `# reviewbot eval: ${result.suite}` : `suite ${result.suite}, model ${result.model}, ${result.repeat} repetitions, window ±${result.window}`,
    ...(md ? ["", `Model \`${result.model}\`, ${result.repeat} repetitions per case, line window ±${result.window}.`, ""] : [""]),
    row(["case", "kind", "precision", "recall", "F0.5", "findings", "matched", "known"]),
    ...(md ? [row(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:"])] : []),
    ...result.cases.map((entry) =>
      row([
        entry.id,
        entry.kind,
        figure(entry.precision),
        figure(entry.recall),
        figure(entry.f05),
        figure(entry.findings, 1),
        figure(entry.matched, 1),
        String(entry.known),
      ]),
    ),
    "",
    ...(md ? [row(["overall", "value"]), row(["---", "---:"])] : []),
    ...OVERALL.map(([key, label, digits]) =>
      md ? row([label, figure(result.overall[key], digits)]) : `${label.padEnd(30)} ${figure(result.overall[key], digits)}`,
    ),
    ...(["precision", "recall", "f05"] as const).map((name) =>
      md ? row([`${name} across repetitions`, spread(name)]) : `${`${name} across repetitions`.padEnd(30)} ${spread(name)}`,
    ),
  ];
  if (compared !== undefined) {
    lines.push("", md ? "## Compared with the earlier result" : `compared with ${compared.before.model} (${compared.before.configHash.slice(0, 12)})`, "");
    if (md) lines.push(row(["figure", "before", "after", "gate"]), row(["---", "---:", "---:", "---"]));
    for (const difference of compared.differences) {
      const cells = [difference.figure, figure(difference.before, 4), figure(difference.after, 4), difference.failure ?? "ok"];
      lines.push(md ? row(cells) : row(cells));
    }
    if (md) lines.push("", costRecallSvg([compared.before, result]));
  }
  return `${lines.join("\n")}\n`;
}
