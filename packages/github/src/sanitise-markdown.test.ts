import { describe, expect, it } from "vitest";
import { sanitiseMarkdown, sanitisePlainText } from "./sanitise-markdown.js";

const ZWJ = "\u200D";

describe("sanitiseMarkdown", () => {
  it.each([
    ["mention of a user", "ping @octocat now", `ping @${ZWJ}octocat now`],
    ["team mention", "@github/security", `@${ZWJ}github/security`],
    ["markdown image", "![x](https://evil.example/p.png)", "\\!\\[x\\]\\(https\\://evil\\.example/p\\.png\\)"],
    ["html image", '<img src="https://evil.example/p.png">', "&lt;img src\\=&quot;https\\://evil\\.example/p\\.png&quot;&gt;"],
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
