/** An inclusive, 1-based range of lines on one side of a diff (the new, head side unless named otherwise). */
export interface LineRange {
  readonly start: number;
  readonly end: number;
}

/** Collapses ascending line numbers into ranges: [3,4,5,9] → 3-5, 9-9. */
export function toRanges(lines: readonly number[]): LineRange[] {
  const ranges: LineRange[] = [];
  let current: { start: number; end: number } | null = null;
  for (const line of lines) {
    if (current !== null && line === current.end + 1) {
      current.end = line;
    } else {
      if (current !== null) ranges.push(current);
      current = { start: line, end: line };
    }
  }
  if (current !== null) ranges.push(current);
  return ranges;
}
