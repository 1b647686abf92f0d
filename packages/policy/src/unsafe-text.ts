// C0 and C1 controls (NUL truncates C strings, ESC drives terminals, a newline forges a report
// line), the Unicode line separators, and the bidi embedding/override/isolate controls of "Trojan
// Source" (CVE-2021-42574), which make text display differently from what it is.
const UNSAFE_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0x2028, 0x2029],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];

/** Whether `char` (one character) is a control, line-separator or bidi character no value of ours may hold. */
export function isUnsafeCharacter(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return UNSAFE_RANGES.some(([low, high]) => code >= low && code <= high);
}

/** The four hex digits of a BMP character's code (`"\u001b"` → `001B`). */
export function hexCode(char: string): string {
  return (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
}

/** Says why `value` holds an unsafe character (see {@link isUnsafeCharacter}), or `undefined` when it holds none. */
export function findUnsafeCharacter(value: string): string | undefined {
  if (value.includes("\0")) return "contains a NUL byte";
  for (const char of value) if (isUnsafeCharacter(char)) return `contains the control character U+${hexCode(char)}`;
  return undefined;
}
