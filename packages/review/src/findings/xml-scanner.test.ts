import { describe, expect, it } from "vitest";
import { MAX_XML_DEPTH, scanXml } from "./xml-scanner.js";

describe("scanXml", () => {
  it("reads start, self-closing and end tags with decoded attributes, skipping declarations, comments and CDATA", () => {
    const scan = scanXml('<?xml version="1.0"?>\n<!-- c --><a x="1&amp;2" y=\'&lt;\'>text<![CDATA[<b>]]><b/></a >');
    expect(scan.problem).toBeNull();
    expect(scan.events).toEqual([
      {
        type: "open",
        name: "a",
        attributes: new Map([
          ["x", "1&2"],
          ["y", "<"],
        ]),
      },
      { type: "open", name: "b", attributes: new Map() },
      { type: "close", name: "b" },
      { type: "close", name: "a" },
    ]);
  });

  it.each([
    ["<a><b></a>", "unexpected </a> at offset 6"],
    ["<a>", "the document ends inside <a> (truncated?)"],
    ['<a x="1>', "malformed or unterminated <a> at offset 0"],
    ["<a x=1/>", "malformed or unterminated <a> at offset 0"],
    ['<a x="<"/>', "malformed or unterminated <a> at offset 0"],
    ["< a/>", "malformed tag at offset 0"],
    ["<a><?pi", 'unterminated "<?" at offset 3'],
    ["<a><![CDATA[x", 'unterminated "<![CDATA[" at offset 3'],
    ['<!ENTITY x "y"><a/>', "refused a DOCTYPE or other declaration at offset 0"],
    ["<a><!DOCTYPE a></a>", "refused a DOCTYPE or other declaration at offset 3"],
    ["", "no XML element found"],
    ["<".repeat(5), "malformed tag at offset 0"],
    ["<a>".repeat(MAX_XML_DEPTH + 1), `elements nest deeper than ${MAX_XML_DEPTH}`],
  ])("stops at the first fault of %j", (text, problem) => {
    expect(scanXml(text).problem).toBe(problem);
  });

  it("reads a large flat document without recursion", () => {
    const text = `<r>${'<e a="1"/>'.repeat(50_000)}</r>`;
    const scan = scanXml(text);
    expect(scan.problem).toBeNull();
    expect(scan.events).toHaveLength(100_002);
  });
});
