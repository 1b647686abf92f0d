import { describe, expect, it } from "vitest";
import { decodeXmlText } from "./xml-entities.js";

describe("decodeXmlText", () => {
  it.each([
    ["plain", "plain"],
    ["&lt;&gt;&amp;&quot;&apos;", "<>&\"'"],
    ["&#65;&#x42;&#x1F600;", "AB😀"],
    ["&#10;&#9;&#13;", "\n\t\r"],
    ["a\tb\nc\rd", "a b c d"],
    ["&amp;lt;", "&lt;"],
  ])("decodes %j", (raw, decoded) => {
    expect(decodeXmlText(raw)).toBe(decoded);
  });

  it.each([
    ["&xxe;", '"&xxe;"'],
    ["a & b", '"&"'],
    ["&#0;", '"&#0;"'],
    ["&#x1;", '"&#x1;"'],
    ["&#xFFFE;", '"&#xFFFE;"'],
    ["&#xDC00;", '"&#xDC00;"'],
    ["&#99999999;", '"&#99999999;"'],
    ["&#x;", '"&"'],
    ["&lt", '"&"'],
  ])("refuses %j", (raw, shown) => {
    expect(decodeXmlText(raw)).toEqual({ problem: `has an undefined or malformed reference ${shown}` });
  });
});
