import { describe, expect, it } from "vitest";
import type { Finding } from "./finding.js";
import { hostileMessage } from "./fixtures/hostile-output.js";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio, randomText } from "./fixtures/time-ratio.js";
import { cleanText, MAX_FINDING_TEXT, sanitiseFinding, sanitiseText } from "./sanitise-output.js";

const open = { maxBytes: 1 << 20, maxLines: 10_000, secrets: [] };
const clean = (input: Buffer | string, secrets: readonly string[] = []) => sanitiseText(input, { ...open, secrets }).text;

// Anything a terminal, a log viewer or a GitHub page could act on or render deceptively.
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("sanitiseText", () => {
  it("turns real coloured flake8 output into its plain form", () => {
    const plain = readFixture("flake8.txt").replaceAll("./app.py", "app.py");
    expect(clean(readFixture("flake8-color.txt"))).toBe(plain);
  });

  it.each([
    ["\u001b[1;31mred\u001b[0m", "red"],
    ["\u001b[38;5;196mx\u001b[m", "x"],
    ["\u001b[?25lhidden cursor\u001b[?25h", "hidden cursor"],
    ["\u001b]8;;https://evil.example/\u001b\\click me\u001b]8;;\u001b\\", "click me"],
    ["\u001b]8;;https://evil.example/\u0007link\u001b]8;;\u0007", "link"],
    ["\u001b]0;window title\u0007after", "after"],
    ["\u001bP1$r0m\u001b\\dcs", "dcs"],
    ["\u001b_apc\u001b\\x", "x"],
    ["\u009b31mC1 CSI", "C1 CSI"],
    ["\u009d8;;https://x\u009clink\u009d8;;\u009c", "link"],
    ["a\u001b]8;;unterminated\nnext", "a\nnext"],
    ["\u001b(Bx\u001b=y\u001bcz\u001b7w", "xyzw"],
    ["trailing escape\u001b", "trailing escape"],
    ["a\u0000b\u0007c\rd\u0008e\u007ff\u0085g\u0099h", "abcdefgh"],
    ["\u009fapc string\u009cafter", "after"],
    ["tab\tand\nnewline kept", "tab\tand\nnewline kept"],
    ["\u202eevil\u202c \u2066iso\u2069 \u200emark\u200f \u061c", "evil iso mark "],
    ["line\u2028separator\u2029para", "line\nseparator\npara"],
    ["\ud800lone\udc00surrogates", "\ufffdlone\ufffdsurrogates"],
    ["emoji 😀 and ünïcode kept", "emoji 😀 and ünïcode kept"],
  ])("cleans %j", (input, expected) => {
    expect(clean(input)).toBe(expected);
  });

  it.each([
    [[0x61, 0xff, 0x62], "a\ufffdb"],
    [[0xc0, 0xaf], "\ufffd\ufffd"],
    [[0xe2, 0x82], "\ufffd"],
    [[0xed, 0xa0, 0x80], "\ufffd\ufffd\ufffd"],
    [[0xf4, 0x90, 0x80, 0x80], "\ufffd\ufffd\ufffd\ufffd"],
    [[0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x6f, 0x6b], "ok"],
    [[0x9b, 0x33, 0x31, 0x6d], "\ufffd31m"],
    [[0xc2, 0x9b, 0x33, 0x31, 0x6d, 0x6f, 0x6b], "ok"],
    [[0xe2, 0x80, 0xae, 0x78], "x"],
  ])("decodes bytes %j", (bytes, expected) => {
    expect(clean(Buffer.from(bytes))).toBe(expected);
  });

  it.each([
    ["token=hunter2-secret-value end", ["hunter2-secret-value"], "token=[REDACTED] end"],
    ["hunter2-\u001b[0msecret-value", ["hunter2-secret-value"], "[REDACTED]"],
    ["abcdefgh-ijkl", ["abcdefgh", "abcdefgh-ijkl"], "[REDACTED]"],
    ["abcdefgh abcdefgh-ijkl", ["abcdefgh", "abcdefgh-ijkl"], "[REDACTED] [REDACTED]"],
    ["a short abc stays", ["abc", ""], "a short abc stays"],
    ["cut at the cap: hunter2-se", ["hunter2-secret-value"], "cut at the cap: [REDACTED]"],
    ["ends with hun", ["hunter2-secret-value"], "ends with hun"],
  ])("scrubs %j of %j", (input, secrets, expected) => {
    expect(clean(input, secrets)).toBe(expected);
  });

  it.each([
    ["a\nb\nc\n", 10, 2, "a\nb\n", true],
    ["a\nb\n", 10, 2, "a\nb\n", false],
    ["a\nb", 10, 2, "a\nb", false],
    ["a\nb\nc", 10, 0, "", true],
    ["€€", 4, 10, "€", true],
    ["€€", 6, 10, "€€", false],
    ["😀x", 3, 10, "", true],
    ["abc", 0, 10, "", true],
    ["\u001b[31m12345\u001b[0m", 5, 10, "12345", false],
  ])("caps %j at %d bytes and %d lines", (input, maxBytes, maxLines, text, truncated) => {
    expect(sanitiseText(input, { maxBytes, maxLines, secrets: [] })).toEqual({ text, truncated });
  });

  it("never lets escapes, controls, bidi or invalid UTF-8 through for random input (seeded)", () => {
    let seed = 0x5eed;
    const random = () => {
      // mulberry32: small, deterministic, good enough to vary the inputs.
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pieces = [
      [0x1b],
      [0x1b, 0x5b],
      [0x1b, 0x5d],
      [0x9b],
      [0xc2, 0x9b],
      [0xc2, 0x9d],
      [0x07],
      [0x0d],
      [0x00],
      [0xe2, 0x80, 0xae],
      [0xe2, 0x81, 0xa6],
      [0xed, 0xa0, 0x80],
      [0xf0, 0x9f, 0x98, 0x80],
      [0x0a],
      [0xe2, 0x82, 0xac],
    ];
    for (let run = 0; run < 500; run += 1) {
      const bytes: number[] = [];
      const length = Math.floor(random() * 120);
      for (let index = 0; index < length; index += 1) {
        if (random() < 0.3) bytes.push(...(pieces[Math.floor(random() * pieces.length)] ?? []));
        else bytes.push(Math.floor(random() * 256));
      }
      const maxBytes = Math.floor(random() * 200);
      const maxLines = Math.floor(random() * 5);
      const { text } = sanitiseText(Buffer.from(bytes), { maxBytes, maxLines, secrets: ["secret-value-123"] });
      expect(text).not.toMatch(FORBIDDEN);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(maxBytes);
      expect(text.split("\n").length - 1).toBeLessThanOrEqual(maxLines);
      expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
    }
  });
});

describe("sanitiseFinding", () => {
  const finding: Finding = { path: "a.py", line: 1, endLine: null, column: null, severity: "error", message: "m", rule: "R1", helper: "h" };

  it.each([
    [{ message: "two\nlines\t tabbed  " }, { message: "two lines tabbed" }],
    [{ message: "\u001b[31mred\u001b[0m \u202eevil" }, { message: "red evil" }],
    [{ message: "leak hunter2-secret-value" }, { message: "leak [REDACTED]" }],
    [{ rule: "\u001b[1mE501\u001b[0m" }, { rule: "E501" }],
    [{ rule: "\u001b[0m" }, { rule: null }],
    [{ rule: null }, { rule: null }],
    [{ message: "x".repeat(5000) }, { message: `${"x".repeat(MAX_FINDING_TEXT - 1)}…` }],
    [{ message: "😀".repeat(MAX_FINDING_TEXT) }, { message: "😀".repeat(MAX_FINDING_TEXT) }],
  ])("sanitises %j", (fields, expected) => {
    const result = sanitiseFinding({ ...finding, ...fields }, { secrets: ["hunter2-secret-value"] });
    expect(result).toEqual({ ...finding, ...fields, ...expected });
  });

  it.each([
    ["one without whitespace, in a text flattened in the same pass", ["hunter2-secret-value"], "a\u001b[1m hunter2-secret-value\n\tb hunter2-sec"],
    ["one holding whitespace, scrubbed before the text is flattened", ["hunter2 secret\tvalue"], "a\u001b[1m hunter2 secret\tvalue\n\tb hunter2 sec"],
  ])("scrubs a secret: %s", (_label, secrets, message) => {
    expect(sanitiseFinding({ ...finding, message }, { secrets }).message).toBe("a [REDACTED] b [REDACTED]");
  });
});

describe("cleanText", () => {
  it.each([
    ["plain text, returned as it is", "plain text", "plain text"],
    ["escape sequences and controls", "\u001b[31mred\u001b[0m\u0007 \u001b]8;;http://x\u001b\\link", "red link"],
    ["bidi controls and a lone surrogate", "\u202eab\ud800", "ab\ufffd"],
    ["a pair kept", "\ud83d\ude00", "\ud83d\ude00"],
    ["whitespace runs holding a newline or tab, not trimmed", " a \n\t b\u2028c ", " a b c "],
    ["a secret, which is not its business", "secret-value-123", "secret-value-123"],
  ])("cleans %s", (_label, input, expected) => {
    expect(cleanText(input)).toBe(expected);
  });

  it("gives text that sanitiseFinding leaves as it is, but for the trim", () => {
    const text = cleanText(hostileMessage(3, 900));
    const finding: Finding = { path: "a.py", line: 1, endLine: null, column: null, severity: "error", message: text, rule: null, helper: "h" };
    expect(sanitiseFinding(finding, { secrets: [] }).message).toBe(text.trim());
  });
});

describe("sanitiseText on pathological input", () => {
  it.each([
    ["an unterminated OSC", `\u001b]8;;${"a".repeat(1_000_000)}`],
    ["a CSI with a million parameters", `\u001b[${"1;".repeat(500_000)}m`],
    ["a million escapes", "\u001b[0m".repeat(250_000)],
    ["a million lone surrogates", "\ud800".repeat(1_000_000)],
  ])(
    "cleans %s in linear time",
    (_name, input) => {
      const { text } = sanitiseText(input, { maxBytes: 1 << 20, maxLines: 1000, secrets: ["secret-value-123"] });
      expect(text).not.toContain("\u001b");
      // No time assertion (speed targets live in bench/): a catastrophic regex would outlast the 20 s.
    },
    20_000,
  );
});

describe("sanitiseText and sanitiseFinding time", () => {
  const secrets = ["secret-value-123", "another-secret-456"];
  const finding: Finding = { path: "a.py", line: 1, endLine: null, column: null, severity: "error", message: "", rule: "R1", helper: "h" };
  // Whitespace runs around newlines (once 8.4 s), escape sequences, surrogates, secrets' starts.
  const hostile = (size: number) => randomText(21, size, [" ", "\t", "\n", " \n ", "\u001b[", "\u001b]8;;", "\ud800", "\u2028", "secret-val", "x"]);
  const benign = (size: number) => randomText(22, size, [`${readFixture("flake8.txt")}\n`, `${readFixture("pylint.txt")}\n`]);
  const text = (output: string) => sanitiseText(output, { maxBytes: Number.POSITIVE_INFINITY, maxLines: Number.POSITIVE_INFINITY, secrets }).text;
  // Many findings, each message hostile: the per-finding cost must not depend on the rest.
  const findings = (output: string) => output.split("\n\n").map((message) => sanitiseFinding({ ...finding, message }, { secrets }));

  it.each([
    ["hostile text", text, hostile, 200_000],
    ["benign text", text, benign, 200_000],
    ["hostile findings", findings, (size: number) => Array.from({ length: size / 200 }, (_, index) => hostileMessage(index, 200)).join("\n\n"), 100_000],
    ["one finding of blanks", findings, (size: number) => `a${" ".repeat(size)}\tb`, 1_000_000],
  ] as const)(
    "sanitises %s in linear time (4× the input, at most 6× the time)",
    (_name, run, make, size) => {
      expect(growthRatio(run, make, size)).toBeLessThanOrEqual(6);
      // Room for growthRatio's rounds when other processes share the cores: hostile text took
      // 33 s once in CI beside other builds (10 s alone); a quadratic sanitiser would still fail the ratio.
    },
    60_000,
  );
});
