import { stripControls } from "@reviewbot/core/strip-controls";
import { describe, expect, it } from "vitest";
import { flattenBreaks, stripAndFlatten, stripUnsafe } from "./text-scan.js";

// The regex `flattenBreaks` does the work of: each run of whitespace holding a newline or tab.
const flattenByRegex = (text: string): string => text.replace(/(?<!\s)\s*[\n\t]\s*/g, " ");

describe("stripUnsafe", () => {
  it.each([
    ["plain text, returned as it is", "plain text", "plain text"],
    ["a CSI at the very end, cut short", "a\u001b[1;3", "a"],
    ["ESC \\ ends a control string, ESC alone is left to open the next", "\u001b]0;t\u001b\\a\u001b]0;u\u001b[1mb", "ab"],
    ["a control string runs to the line's end", "a\u001b]8;;x\ny", "a\ny"],
    ["an 8-bit OSC ended by ST", "\u009d8;;u\u009clink", "link"],
    ["a pair kept, lone halves replaced, a pair split by an escape not joined", "😀\ud800x\udc00\ud83d\u001b[m\ude00", "😀\ufffdx\ufffd\ufffd\ufffd"],
    ["line separators become newlines", "a\u2028b\u2029c", "a\nb\nc"],
    ["text with units above U+00FF", "€ \u202e\u001b[31m✓\u0085", "€ ✓"],
  ])("strips %s", (_name, input, expected) => {
    expect(stripUnsafe(input)).toBe(expected);
  });

  it("removes every unit stripControls removes, and keeps every other unit that is not an escape, a separator or a surrogate", () => {
    for (let unit = 0; unit < 0x10000; unit += 1) {
      const char = String.fromCharCode(unit);
      if (unit === 0x1b || (unit >= 0x90 && unit <= 0x9f) || unit === 0x2028 || unit === 0x2029 || (unit >= 0xd800 && unit <= 0xdfff)) continue;
      expect(stripUnsafe(`a${char}b`)).toBe(`a${stripControls(char)}b`);
    }
  });

  it("reads nothing of an earlier, longer text in its buffer", () => {
    // The first text leaves a low surrogate just past the second's end, where the second's lone
    // high surrogate must not find it.
    expect(stripUnsafe("\u001b€😀")).toBe("€😀");
    expect(stripUnsafe("\u001b€\ud800")).toBe("€\ufffd");
  });

  it("strips a text longer than its buffer, narrow and wide", () => {
    const narrow = "\u001b[31mred\u001b[0m ".repeat(10_000);
    expect(stripUnsafe(narrow)).toBe("red ".repeat(10_000));
    expect(stripUnsafe(`€${narrow}`)).toBe(`€${"red ".repeat(10_000)}`);
  });
});

describe("flattenBreaks", () => {
  it.each([
    ["a run holding a newline or tab becomes one space", " a \n\t b\tc ", " a b c "],
    ["a run without one is kept", "a  b\u00a0c", "a  b\u00a0c"],
    ["a run at either end", "\n a \t", " a "],
    ["whitespace beyond ASCII joins the run", "a\u3000\n\ufeffb", "a b"],
    ["nothing else is touched", "\u001b[1m\ud800", "\u001b[1m\ud800"],
  ])("%s", (_name, input, expected) => {
    expect(flattenBreaks(input)).toBe(expected);
    expect(flattenByRegex(input)).toBe(expected);
  });

  it("treats every unit as `\\s` does", () => {
    for (let unit = 0; unit < 0x10000; unit += 1) {
      const text = `a${String.fromCharCode(unit)}\nb`;
      expect(flattenBreaks(text)).toBe(flattenByRegex(text));
    }
  });
});

describe("stripAndFlatten", () => {
  it.each([
    ["escapes and controls inside a run do not end it", "a \u001b[0m\r\n\u0007 b", "a b"],
    ["a line separator is a newline, so a break", "a\u2028b", "a b"],
    ["a run cut by a kept character stays two runs", "a \n\u00e9\t b", "a \u00e9 b"],
  ])("%s", (_name, input, expected) => {
    expect(stripAndFlatten(input)).toBe(expected);
  });

  it("is flattenBreaks after stripUnsafe, for random text (seeded)", () => {
    const pieces = [
      "\u001b",
      "[",
      "]",
      "\\",
      "\u0007",
      "\u009c",
      "\u009d",
      "\n",
      "\t",
      "\r",
      " ",
      "\u00a0",
      "\u2028",
      "\ud800",
      "\udc00",
      "😀",
      "a",
      "1",
      ";",
      "€",
    ];
    let seed = 0x5eed;
    for (let run = 0; run < 2_000; run += 1) {
      let text = "";
      for (let index = 0; index < run % 60; index += 1) {
        seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
        text += pieces[seed % pieces.length] ?? "";
      }
      expect(stripAndFlatten(text)).toBe(flattenBreaks(stripUnsafe(text)));
    }
  });
});
