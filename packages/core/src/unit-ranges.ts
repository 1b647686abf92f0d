/** Inclusive ranges of UTF-16 code units: `[[0x00, 0x08], [0x7f, 0x7f]]`. */
export type UnitRanges = readonly (readonly [number, number])[];

/** A regex of one character class holding the units in `ranges` (no `u` flag: units, not code points). */
export function unitClass(ranges: UnitRanges, flags = ""): RegExp {
  const escaped = (unit: number): string => `\\u${unit.toString(16).padStart(4, "0")}`;
  return new RegExp(`[${ranges.map(([low, high]) => `${escaped(low)}-${escaped(high)}`).join("")}]`, flags);
}
