import { endianness } from "node:os";
import { CONTROL_RANGES } from "@reviewbot/core/strip-controls";
import { unitClass, type UnitRanges } from "@reviewbot/core/unit-ranges";

const SEPARATORS: UnitRanges = [[0x2028, 0x2029]];
const SURROGATES: UnitRanges = [[0xd800, 0xdfff]];
/** ECMAScript's WhiteSpace and LineTerminator: what `\s` matches and `trim` removes. */
const WHITESPACE: UnitRanges = [
  [0x0009, 0x000d],
  [0x0020, 0x0020],
  [0x00a0, 0x00a0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** Tab and newline: a run of whitespace holding one is flattened. */
const BREAKS: UnitRanges = [[0x0009, 0x000a]];

// What the scan does with each UTF-16 unit, by a table per kind of scan.
/** Copied. */
const KEEP = 0;
/** Removed: what `stripControls` removes, but for the units below that open a sequence. */
const CONTROL = 1;
/** ESC: opens a sequence whose kind the next unit gives. */
const ESCAPE = 2;
/** The 8-bit DCS, SOS, OSC, PM and APC: open a control string. */
const STRING = 3;
/** The 8-bit CSI: opens a control sequence. */
const CSI = 4;
/** U+2028 and U+2029 when not flattening: become a newline. */
const SEPARATOR = 5;
/** Kept when one of a pair, else becomes U+FFFD. */
const SURROGATE = 6;
/** Whitespace other than a break: copied, and part of a run. */
const BLANK = 7;
/** Tab or newline: copied, and makes its run one space. */
const BREAK = 8;
/** U+2028 and U+2029 when flattening: become a newline, so a break. */
const SEPARATOR_BREAK = 9;

const BEL = 0x07;
const NEWLINE = 0x0a;
const ESC = 0x1b;
const SPACE = 0x20;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const ST = 0x9c;
const REPLACEMENT = 0xfffd;

const STRIP = tableOf({ strip: true, flatten: false });
const FLATTEN = tableOf({ strip: false, flatten: true });
const STRIP_AND_FLATTEN = tableOf({ strip: true, flatten: true });
// The units each scan acts on: a text without one is returned as it is, after one native scan.
const UNSAFE = unitClass([...CONTROL_RANGES, ...SEPARATORS, ...SURROGATES]);
const BREAK_UNITS = unitClass(BREAKS);
const UNSAFE_OR_BREAK = unitClass([...CONTROL_RANGES, ...SEPARATORS, ...SURROGATES, ...BREAKS]);

// A unit above U+00FF: a text without one is scanned a byte a unit.
const WIDE = /[\u0100-\uffff]/;
const BIG_ENDIAN = endianness() === "BE";
// The units of a text this short are copied into one buffer kept for the purpose rather than a
// new one: most texts are a finding's message, and a buffer each made stripping ESLint's hostile
// messages (bench:parsers) about a quarter dearer.
const SCRATCH_UNITS = 4096;
const scratch = Buffer.alloc(2 * SCRATCH_UNITS);
const scratchUnits = new Uint16Array(scratch.buffer, scratch.byteOffset, SCRATCH_UNITS);

type Units = Uint8Array | Uint16Array;

/**
 * `text` without terminal escape sequences, control characters other than newline and tab, and
 * bidi controls; each lone surrogate becomes U+FFFD and each line separator (U+2028, U+2029) a
 * newline. Escape sequences are ECMA-48's: control strings (OSC — including OSC 8 hyperlinks —,
 * DCS, SOS, PM, APC) in their 7-bit (ESC ]) and 8-bit (U+009D) forms, ended by BEL or ST and,
 * unterminated, at the line's end; CSI sequences (ESC [ or U+009B) with their parameters,
 * intermediates and final; any other ESC with its intermediates and final.
 *
 * In one pass, which gives what replacing lone surrogates, then removing escape sequences, then
 * controls, then turning separators into newlines gives: no sequence holds a surrogate but in a
 * control string's body, which is removed whole whatever it holds, and none ends at a surrogate.
 */
export function stripUnsafe(text: string): string {
  return UNSAFE.test(text) ? scan(text, STRIP) : text;
}

/** `text` with each run of whitespace holding a newline or tab made one space. */
export function flattenBreaks(text: string): string {
  return BREAK_UNITS.test(text) ? scan(text, FLATTEN) : text;
}

/** `flattenBreaks(stripUnsafe(text))`, in one pass. */
export function stripAndFlatten(text: string): string {
  return UNSAFE_OR_BREAK.test(text) ? scan(text, STRIP_AND_FLATTEN) : text;
}

/**
 * One pass over the text's UTF-16 units, copied into a typed array (a byte a unit when the text
 * has none above U+00FF) and rewritten in place, rather than a regex replace per kind of unit: a
 * replace costs a call and a rope node per match, which made sanitising text dense with escapes
 * cost about three times sanitising plain text, and left a rope to flatten. Linear by
 * construction: each unit is read once, and written at most once.
 */
function scan(text: string, table: Uint8Array): string {
  const length = text.length;
  if (!WIDE.test(text)) {
    const bytes = bufferOf(length);
    bytes.write(text, 0, length, "latin1");
    return bytes.toString("latin1", 0, rewrite(bytes, length, table));
  }
  const bytes = bufferOf(2 * length);
  bytes.write(text, 0, 2 * length, "utf16le");
  // A Uint16Array reads units in the machine's byte order; UTF-16LE is little-endian.
  if (BIG_ENDIAN) bytes.subarray(0, 2 * length).swap16();
  const units = bytes === scratch ? scratchUnits : new Uint16Array(bytes.buffer, bytes.byteOffset, length);
  const kept = rewrite(units, length, table);
  if (BIG_ENDIAN) bytes.subarray(0, 2 * kept).swap16();
  return bytes.toString("utf16le", 0, 2 * kept);
}

// The scratch buffer when `size` bytes fit in it, else a buffer of their own. Not a view of
// `size` bytes, which made stripping a short message about a twentieth dearer: the text is the
// buffer's first bytes, and nothing past them (where earlier texts were) is read.
function bufferOf(size: number): Buffer {
  // allocUnsafeSlow: never a slice of the shared pool, so a Uint16Array view is aligned.
  return size <= scratch.length ? scratch : Buffer.allocUnsafeSlow(size);
}

/**
 * Rewrites the first `end` units of `units` in place as `table` says (no unit becomes more than
 * one) and returns how many are kept; nothing from `end` on is read. A run of whitespace is
 * copied as it comes and, once it ends, cut back to one space if it held a break; units removed
 * inside a run do not end it.
 */
function rewrite(units: Units, end: number, table: Uint8Array): number {
  let kept = 0;
  let index = 0;
  // Where the whitespace run being copied starts among the kept units (-1: none), and whether
  // it holds a break.
  let run = -1;
  let breaks = false;
  while (index < end) {
    const unit = units[index] ?? 0;
    const kind = table[unit];
    index += 1;
    if (kind === KEEP || kind === SURROGATE) {
      if (run !== -1) {
        kept = breaks ? collapse(units, run) : kept;
        run = -1;
        breaks = false;
      }
      if (kind === SURROGATE) {
        const low = index < end ? (units[index] ?? 0) : 0;
        const paired = unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
        units[kept] = paired ? unit : REPLACEMENT;
        kept += 1;
        if (paired) {
          units[kept] = low;
          kept += 1;
          index += 1;
        }
        continue;
      }
      // This unit and the kept units after it, in a loop of their own: most units are kept.
      units[kept] = unit;
      kept += 1;
      while (index < end) {
        const next = units[index] ?? 0;
        if (table[next] !== KEEP) break;
        units[kept] = next;
        kept += 1;
        index += 1;
      }
    } else if (kind === BLANK || kind === BREAK || kind === SEPARATOR_BREAK) {
      if (run === -1) run = kept;
      if (kind !== BLANK) breaks = true;
      units[kept] = kind === SEPARATOR_BREAK ? NEWLINE : unit;
      kept += 1;
    } else if (kind === ESCAPE) {
      index = escapeEnd(units, index, end);
    } else if (kind === STRING) {
      index = stringEnd(units, index, end);
    } else if (kind === CSI) {
      index = csiEnd(units, index, end);
    } else if (kind === SEPARATOR) {
      units[kept] = NEWLINE;
      kept += 1;
    }
  }
  return run !== -1 && breaks ? collapse(units, run) : kept;
}

// A run starting at `run` made one space; the count of units kept after it.
function collapse(units: Units, run: number): number {
  units[run] = SPACE;
  return run + 1;
}

// The end of a sequence whose ESC ends before `from`.
function escapeEnd(units: Units, from: number, end: number): number {
  const next = from < end ? units[from] : undefined;
  // `]` OSC, `P` DCS, `X` SOS, `^` PM, `_` APC: a control string.
  if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f) return stringEnd(units, from + 1, end);
  if (next === OPEN_BRACKET) return csiEnd(units, from + 1, end);
  return finalEnd(units, skip(units, from, end, 0x20, 0x2f), end, 0x30, 0x7e);
}

// A control string's body runs to BEL, ST or ESC \ (taken with it), or to an ESC or a newline
// (left for what follows).
function stringEnd(units: Units, from: number, end: number): number {
  let index = from;
  while (index < end) {
    const unit = units[index];
    if (unit === BEL || unit === ST) return index + 1;
    if (unit === ESC) return index + 1 < end && units[index + 1] === BACKSLASH ? index + 2 : index;
    if (unit === NEWLINE) return index;
    index += 1;
  }
  return index;
}

// Parameters (0x30–0x3f), then intermediates (0x20–0x2f), then a final (0x40–0x7e), each optional.
function csiEnd(units: Units, from: number, end: number): number {
  return finalEnd(units, skip(units, skip(units, from, end, 0x30, 0x3f), end, 0x20, 0x2f), end, 0x40, 0x7e);
}

function skip(units: Units, from: number, end: number, low: number, high: number): number {
  let index = from;
  while (index < end && inRange(units[index] ?? 0, low, high)) index += 1;
  return index;
}

function finalEnd(units: Units, at: number, end: number, low: number, high: number): number {
  return at < end && inRange(units[at] ?? 0, low, high) ? at + 1 : at;
}

function inRange(unit: number, low: number, high: number): boolean {
  return unit >= low && unit <= high;
}

function tableOf({ strip, flatten }: { strip: boolean; flatten: boolean }): Uint8Array {
  const table = new Uint8Array(0x10000);
  const mark = (ranges: UnitRanges, kind: number) => {
    for (const [low, high] of ranges) table.fill(kind, low, high + 1);
  };
  if (flatten) {
    mark(WHITESPACE, BLANK);
    mark(BREAKS, BREAK);
  }
  if (strip) {
    mark(CONTROL_RANGES, CONTROL);
    table[ESC] = ESCAPE;
    for (const unit of [0x90, 0x98, 0x9d, 0x9e, 0x9f]) table[unit] = STRING;
    table[0x9b] = CSI;
    mark(SEPARATORS, flatten ? SEPARATOR_BREAK : SEPARATOR);
    mark(SURROGATES, SURROGATE);
  }
  return table;
}
