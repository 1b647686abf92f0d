import { describe, expect, it } from "vitest";
import { sanitiseCodeSpan, sanitiseMarkdown, sanitisePlainText } from "./sanitise-markdown.js";

const ZWJ = "\u200D";

describe("sanitiseMarkdown", () => {
  it.each([
    ["mention of a user", "ping @octocat now", `ping @${ZWJ}octocat now`],
    ["team mention", "@github/security", `@${ZWJ}github/security`],
    ["markdown image", "![x](https://evil.example/p.png)", "\\!\\[x\\]\\(`https://evil.example/p.png`\\)"],
    ["html image", '<img src="https://evil.example/p.png">', "&lt;img src\\=&quot;`https://evil.example/p.png`&quot;&gt;"],
    ["link", "[click](javascript:alert(1))", "\\[click\\]\\(javascript\\:alert\\(1\\)\\)"],
    ["table break-out", "a | b\n| c |", "a \\| b \\| c \\|"],
    ["heading and emphasis", "# *big* _x_", "\\# \\*big\\* \\_x\\_"],
    ["html comment closing our marker", "--> <!-- reviewbot", "\\-\\-&gt; &lt;\\!\\-\\- reviewbot"],
    ["bidi override", "a\u202Eb\u2066c", "abc"],
    ["control characters", "a\u0000b\u001bc", "abc"],
    ["entity injection", "&lt;script&gt;", "&amp;lt;script&amp;gt;"],
    ["backslash cannot un-escape", "\\![x](y)", "\\\\\\!\\[x\\]\\(y\\)"],
    ["an @ inside a word is broken too (harmless)", "me@example.com", `me@${ZWJ}example\\.com`],
    ["plain words unchanged", "unused variable foo", "unused variable foo"],
  ])("%s", (_name, input, expected) => {
    expect(sanitiseMarkdown(input)).toBe(expected);
  });

  it("keeps line breaks in block mode", () => {
    expect(sanitiseMarkdown("a\nb", { inline: false })).toBe("a  \nb");
  });

  it.each([["![a](http://x/y)"], ['<img src=x onerror="alert(1)">'], ["<a href='https://evil'>x</a>"], ["[x]: https://evil"]])(
    "leaves no raw HTML tag or link syntax in %s",
    (input) => {
      const output = sanitiseMarkdown(input);
      expect(output).not.toMatch(/<[a-z]/i);
      expect(output).not.toMatch(/(?<!\\)[[\]()]/);
    },
  );
});

describe("sanitiseMarkdown: what GitHub would autolink is shown as code", () => {
  const SHA = "0123456789abcdef0123456789abcdef01234567";
  it.each([
    ["an issue reference", "fixes #123 now", "fixes `#123` now"],
    ["a GH- reference", "see GH-42, then", "see `GH-42`, then"],
    ["a lower-case gh- reference", "gh-7", "`gh-7`"],
    ["a reference in another repository", "like octo/widgets#7.", "like `octo/widgets#7`\\."],
    ["a reference in a word", "C#1 and x#2", "C`#1` and x`#2`"],
    ["a full commit SHA", `at ${SHA}`, `at \`${SHA}\``],
    ["a short commit SHA", "at deadbee.", "at `deadbee`\\."],
    ["a commit in another repository", "octo/widgets@deadbee", "`octo/widgets@deadbee`"],
    ["a commit in a user's fork", "octocat@deadbee", "`octocat@deadbee`"],
    ["a bare URL", "go to https://evil.example/x?a=1 now", "go to `https://evil.example/x?a=1` now"],
    ["an ftp URL", "ftp://evil.example/f", "`ftp://evil.example/f`"],
    ["a www. autolink", "(www.evil.example/p)", "\\(`www.evil.example/p`\\)"],
    ["a URL up to a backtick", "https://e.example/`x", "`https://e.example/`\\`x"],
    ["a mention stays broken, outside code", "cc @octocat", `cc @${ZWJ}octocat`],
    ["two references that touch are kept apart", "#1#2", `\`#1\`${ZWJ}\`#2\``],
  ])("%s", (_name, input, expected) => {
    expect(sanitiseMarkdown(input)).toBe(expected);
  });

  it.each([
    ["ordinary words", "fixed 3 bugs in 12 files of src/app.ts", "fixed 3 bugs in 12 files of src/app\\.ts"],
    ["a hex word shorter than a SHA", "cafe12 decade", "cafe12 decade"],
    ["a number after 'issue'", "issue 12", "issue 12"],
    ["a hex run longer than a SHA-1 (not one)", "a".repeat(41), "a".repeat(41)],
  ])("leaves %s alone", (_name, input, expected) => {
    expect(sanitiseMarkdown(input)).toBe(expected);
  });

  it.each([
    ["a code span", "call `foo(#1, @x, https://e.example)` here", "call `foo(#1, @x, https://e.example)` here"],
    ["a double-backtick span holding a backtick", "``a`b #1``", "``a`b #1``"],
    ["a span next to a reference", "`x`#1", `\`x\`${ZWJ}\`#1\``],
  ])("keeps %s as it is: GitHub links nothing in code", (_name, input, expected) => {
    expect(sanitiseMarkdown(input)).toBe(expected);
    expect(sanitiseMarkdown(input, { inline: false })).toBe(expected);
  });

  it.each([
    ["an unclosed backtick", "a `b #1", "a \\`b `#1`"],
    ["backtick runs of different lengths", "``a` #1", "\\`\\`a\\` `#1`"],
  ])("escapes %s as text", (_name, input, expected) => {
    expect(sanitiseMarkdown(input)).toBe(expected);
  });

  it("keeps a code span on one line only: one across lines is text (a fence left open would swallow what follows)", () => {
    expect(sanitiseMarkdown("a\n`b`", { inline: false })).toBe("a  \n`b`");
    expect(sanitiseMarkdown("`a\nb`", { inline: false })).toBe("\\`a  \nb\\`");
    expect(sanitiseMarkdown("```\n#1\n```", { inline: false })).toBe("\\`\\`\\`  \n`#1`  \n\\`\\`\\`");
  });

  it("escapes a code span holding `|` inline (it would end a table cell), and keeps it in block mode", () => {
    expect(sanitiseMarkdown("`a|b`")).toBe("\\`a\\|b\\`");
    expect(sanitiseMarkdown("`a|b`", { inline: false })).toBe("`a|b`");
  });

  it("runs in time linear in hostile input (16k against 256k characters)", () => {
    const hostile = ["`", "``", "a/", "#", "@", "0", "https://", "www.", "GH-", "x".repeat(39), "-"];
    const input = (length: number): string =>
      Array.from({ length: Math.ceil(length / 5) }, (_, i) => hostile[(i * 7) % hostile.length])
        .join("")
        .slice(0, length);
    const timed = (length: number): number => {
      const text = input(length);
      sanitiseMarkdown(text);
      // The fastest of five: noise from other processes only ever adds time.
      return Math.min(
        ...Array.from({ length: 5 }, () => {
          const start = process.hrtime.bigint();
          sanitiseMarkdown(text);
          sanitiseMarkdown(text, { inline: false });
          return Number(process.hrtime.bigint() - start);
        }),
      );
    };
    const small = timed(16_000);
    const large = timed(256_000);
    // Linear is 16 times; quadratic would be 256.
    expect(large / small).toBeLessThan(48);
  });
});

describe("sanitiseCodeSpan", () => {
  it.each([
    ["plain text", "gpt-4.1", "`gpt-4.1`"],
    ["a backtick run inside", "a``b", "```a``b```"],
    ["a backtick at an end", "`x", "`` `x ``"],
    ["a newline and a bidi override", "a\nb\u202Ec", "`a bc`"],
    ["nothing", "", "`  `"],
  ])("%s", (_name, input, expected) => {
    expect(sanitiseCodeSpan(input)).toBe(expected);
  });
});

describe("sanitisePlainText", () => {
  it.each([
    ["mention", "cc @admin", `cc @${ZWJ}admin`],
    ["newlines kept", "line1\nline2", "line1\nline2"],
    ["bidi removed", "x\u202Dy", "xy"],
    ["markdown untouched", "*a* [b](c)", "*a* [b](c)"],
  ])("%s", (_name, input, expected) => {
    expect(sanitisePlainText(input)).toBe(expected);
  });
});
