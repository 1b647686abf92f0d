import { truncateUtf8 } from "./truncate-utf8.js";

/**
 * Joins `lines` with newlines while they fit in `maxBytes` (UTF-8), then says how many lines were
 * left out. Linear: the byte count is kept as lines are added, never measured again from the start.
 */
export function joinWithin(lines: readonly string[], maxBytes: number, limitName: string): string {
  const reserve = 100;
  const kept: string[] = [];
  let bytes = 0;
  for (const [index, line] of lines.entries()) {
    bytes += Buffer.byteLength(line, "utf8") + (index === 0 ? 0 : 1);
    if (bytes > maxBytes - reserve) return `${kept.join("\n")}\n\n_${lines.length - index} more lines did not fit in GitHub's ${limitName} limit._`;
    kept.push(line);
  }
  return truncateUtf8(kept.join("\n"), maxBytes);
}
