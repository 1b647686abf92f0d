import type { EvalResult } from "./eval-result.js";

const WIDTH = 480;
const HEIGHT = 320;
const MARGIN = 48;

const escapeXml = (text: string): string => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * An inline SVG scatter plot: cost per PR (x, USD) against recall (y, 0–1), one labelled point per
 * result (a run without a recall or a cost is left out). Labels are the model names, escaped.
 */
export function costRecallSvg(results: readonly EvalResult[]): string {
  const points = results.flatMap((result) =>
    result.overall.recall === null || result.overall.costPerPr === null
      ? []
      : [{ label: result.model, cost: result.overall.costPerPr, recall: result.overall.recall }],
  );
  const maxCost = Math.max(...points.map((point) => point.cost), 0) || 1;
  const x = (cost: number): number => MARGIN + (cost / maxCost) * (WIDTH - 2 * MARGIN);
  const y = (recall: number): number => HEIGHT - MARGIN - recall * (HEIGHT - 2 * MARGIN);
  const dots = points.map(
    (point) =>
      `<circle cx="${x(point.cost).toFixed(1)}" cy="${y(point.recall).toFixed(1)}" r="4"/><text x="${(x(point.cost) + 6).toFixed(1)}" y="${(y(point.recall) - 6).toFixed(1)}" font-size="11">${escapeXml(point.label)}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="cost per PR against recall">`,
    `<line x1="${MARGIN}" y1="${HEIGHT - MARGIN}" x2="${WIDTH - MARGIN}" y2="${HEIGHT - MARGIN}" stroke="black"/>`,
    `<line x1="${MARGIN}" y1="${MARGIN}" x2="${MARGIN}" y2="${HEIGHT - MARGIN}" stroke="black"/>`,
    `<text x="${WIDTH / 2}" y="${HEIGHT - 12}" font-size="12" text-anchor="middle">cost per PR (USD, 0–${maxCost.toFixed(4)})</text>`,
    `<text x="14" y="${HEIGHT / 2}" font-size="12" transform="rotate(-90 14 ${HEIGHT / 2})" text-anchor="middle">recall (0–1)</text>`,
    ...dots,
    "</svg>",
  ].join("");
}
