import { unitClass, type UnitRanges } from "./unit-ranges.js";

/**
 * The UTF-16 units {@link stripControls} removes, as inclusive ranges: C0 controls except \t and
 * \n, DEL and C1 controls (CR goes too: it overwrites a line on a terminal), and the bidi controls
 * of Trojan Source (CVE-2021-42574) plus LRM, RLM and ALM. Exported for the findings sanitiser,
 * which classifies units itself in one scan, so that it strips the same set.
 */
export const CONTROL_RANGES: UnitRanges = [
  [0x0000, 0x0008],
  [0x000b, 0x001f],
  [0x007f, 0x009f],
  [0x200e, 0x200f],
  [0x061c, 0x061c],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];

const CONTROLS = unitClass(CONTROL_RANGES, "g");

/**
 * Removes the control and bidi characters that make untrusted text act on a terminal or display
 * differently from what it is; tab and newline stay. The publisher's Markdown sanitiser and the
 * model client's error excerpts use it; the findings sanitiser strips the same set (see
 * {@link CONTROL_RANGES}).
 */
export function stripControls(text: string): string {
  return text.replace(CONTROLS, "");
}
