import { describe, expect, it } from "vitest";
import { hostileMessage, LONG_PATH, readOutput, repeatTo } from "./fixtures/hostile-output.js";
import { readFixture } from "./fixtures/read-fixture.js";
import { growthRatio } from "./fixtures/time-ratio.js";
import { parseCheckstyle } from "./parse-checkstyle.js";

const context = { helper: "checkstyle" };
const wrap = (inner: string) => `<?xml version="1.0"?><checkstyle version="4.3">${inner}</checkstyle>`;

describe("parseCheckstyle", () => {
  it("reads a checkstyle report: entities, a file-level error (line 0), empty files, relative names", () => {
    const outcome = parseCheckstyle(readFixture("checkstyle.xml"), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings).toEqual([
      {
        path: "/work/src/main/java/App.java",
        line: 3,
        endLine: null,
        column: 1,
        severity: "warning",
        message: "Missing a Javadoc comment.",
        rule: "com.puppycrawl.tools.checkstyle.checks.javadoc.MissingJavadocTypeCheck",
        helper: "checkstyle",
      },
      {
        path: "/work/src/main/java/App.java",
        line: 7,
        endLine: null,
        column: null,
        severity: "error",
        message: "'x' hides a field & a \"local\" <T> → →",
        rule: "com.puppycrawl.tools.checkstyle.checks.coding.HiddenFieldCheck",
        helper: "checkstyle",
      },
      {
        path: "/work/src/main/java/App.java",
        line: null,
        endLine: null,
        column: null,
        severity: "notice",
        message: "File does not end with a newline.",
        rule: "com.puppycrawl.tools.checkstyle.checks.NewlineAtEndOfFileCheck",
        helper: "checkstyle",
      },
      {
        path: "src/main/java/Util.java",
        line: 12,
        endLine: null,
        column: 20,
        severity: "error",
        message: "Line is longer than 100 characters (found 131).",
        rule: "com.puppycrawl.tools.checkstyle.checks.sizes.LineLengthCheck",
        helper: "checkstyle",
      },
    ]);
  });

  it.each([
    ['<error line="1" message="m" source="r"/>', { severity: "warning" }],
    ["<error line='2' severity='info' message='single &#39;quotes&#39;'/>", { line: 2, severity: "notice", message: "single 'quotes'", rule: null }],
    ['<error line="3" severity="error" message="two&#10;lines and\ta tab"/>', { message: "two\nlines and a tab" }],
    ['<error\n  line="4"\n  message="attributes on lines"\n/>', { line: 4 }],
  ])("reads %s", (error, expected) => {
    const outcome = parseCheckstyle(wrap(`<file name="a.java">${error}</file>`), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings[0]).toMatchObject(expected);
  });

  it("keeps the findings read before a mismatched end tag", () => {
    const outcome = parseCheckstyle(wrap('<file name="a"><error line="1" message="m"></file>'), context);
    expect(outcome.findings).toHaveLength(1);
    expect(outcome.problems).toEqual(["malformed XML: unexpected </file> at offset 90"]);
  });

  it("keeps the findings read before a truncation", () => {
    const outcome = parseCheckstyle(readFixture("checkstyle.xml").slice(0, 400), context);
    expect(outcome.findings).toHaveLength(1);
    expect(outcome.problems).toEqual([expect.stringMatching(/^malformed XML: /)]);
  });

  it.each([
    [
      '<?xml version="1.0"?><!DOCTYPE checkstyle [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><checkstyle><file name="a"><error line="1" message="&xxe;"/></file></checkstyle>',
      "malformed XML: refused a DOCTYPE or other declaration",
    ],
    ['<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><checkstyle/>', "malformed XML: refused a DOCTYPE or other declaration"],
    [wrap('<file name="a"><error line="1" message="&lol;"/></file>'), 'malformed XML: attribute "message" has an undefined or malformed reference "&lol;"'],
    [wrap('<file name="a"><error line="1" message="a & b"/></file>'), 'malformed XML: attribute "message" has an undefined or malformed reference "&"'],
    [wrap('<file name="a"><error line="1" message="&#0;"/></file>'), 'malformed XML: attribute "message" has an undefined or malformed reference "&#0;"'],
    [
      wrap('<file name="a"><error line="1" message="&#xD800;"/></file>'),
      'malformed XML: attribute "message" has an undefined or malformed reference "&#xD800;"',
    ],
    [
      wrap('<file name="a"><error line="1" message="&#x110000;"/></file>'),
      'malformed XML: attribute "message" has an undefined or malformed reference "&#x110000;"',
    ],
    [wrap('<file name="a"><error line="1" line="2" message="m"/></file>'), 'malformed XML: duplicate attribute "line"'],
    ["<html><body>502 Bad Gateway</body></html>", 'output is not checkstyle XML: the root element is <"html">'],
    ["plain text, no markup", "malformed XML: no XML element found"],
    [wrap("<!-- unterminated comment"), 'malformed XML: unterminated "<!--"'],
    [`<checkstyle>${"<x>".repeat(10_000)}`, "malformed XML: elements nest deeper than 64"],
    [wrap('<error line="1" message="m"/>'), "error 1 is outside a <file> element"],
    [wrap('<file name="a"><error line="-1" message="m"/></file>'), 'error 1: line "-1" is not a positive integer'],
    [wrap('<file name="a"><error line="NaN" message="m"/></file>'), 'error 1: line "NaN" is not a positive integer'],
    [wrap('<file name="a"><error line="1e9999" message="m"/></file>'), 'error 1: line "1e9999" is not a positive integer'],
    [wrap('<file name="a"><error line="1"/></file>'), "error 1: has no message"],
    [wrap('<file><error line="1" message="m"/></file>'), "error 1: has no file path"],
  ])("reports %s", (output, problem) => {
    const outcome = parseCheckstyle(output, context);
    expect(outcome.findings).toEqual([]);
    // Offsets are checked in xml-scanner.test.ts.
    expect(outcome.problems.map((note) => note.replace(/ at offset \d+$/, ""))).toEqual([problem]);
  });
});

describe("parseCheckstyle on pathological input", () => {
  it.each([
    ["an unterminated attribute list", `<checkstyle><file name="a"><error ${" ".repeat(1_000_000)}`],
    ["an unterminated attribute value", `<checkstyle><file name="a"><error message="${"x".repeat(1_000_000)}`],
    ["20,000 errors", `<checkstyle><file name="a">${'<error line="1" message="m"/>'.repeat(20_000)}</file></checkstyle>`],
    ["a million entities", `<checkstyle><file name="a"><error line="1" message="${"&amp;".repeat(1_000_000)}"/></file></checkstyle>`],
  ])(
    "reads %s in linear time",
    (_name, output) => {
      parseCheckstyle(output, context);
      // No time assertion (speed targets live in bench/): a catastrophic regex would outlast the 20 s.
    },
    20_000,
  );
});

describe("parseCheckstyle under hostile output", () => {
  // ESC is no XML character, even as a reference: it is dropped, not written.
  const escape = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll('"', "&quot;").replaceAll("\u001b", "");
  // One file with a long name and errors whose attributes hold whitespace runs, entities and
  // wide gaps between attributes; then unterminated entity-like runs and tags the scanner refuses.
  const hostile = (size: number) =>
    `<?xml version="1.0"?>\n<checkstyle><file name="${LONG_PATH}">${repeatTo(
      size,
      11,
      "\n",
      (index) => `<error${" ".repeat(index % 50)} line="${index + 1}"\tseverity="error" message="${escape(hostileMessage(index, 60))}" source="s"/>`,
    )}</file></checkstyle>`;
  const benign = (size: number) => {
    const files = /<file[\s\S]*<\/file>/.exec(readFixture("checkstyle.xml"))?.[0] ?? "";
    return `<checkstyle>${repeatTo(size, 12, "\n", () => files)}</checkstyle>`;
  };

  it("reads output that starts with a byte-order mark", () => {
    expect(parseCheckstyle(`\ufeff${readFixture("checkstyle.xml")}`, context)).toEqual(parseCheckstyle(readFixture("checkstyle.xml"), context));
  });

  it("reads every error of the hostile output", () => {
    const outcome = parseCheckstyle(hostile(100_000), context);
    expect(outcome.problems).toEqual([]);
    expect(outcome.findings.length).toBeGreaterThan(300);
  });

  it.each([
    ["hostile", hostile, 250_000],
    ["benign", benign, 500_000],
    ["an unterminated entity run", (size: number) => `<checkstyle><file name="a"><error message="${"&a".repeat(size / 2)}`, 1_000_000],
    ["a tag of blanks", (size: number) => `<checkstyle><file name="a"><error${" ".repeat(size)}`, 2_000_000],
  ] as const)(
    "reads %s in linear time (4× the input, at most 6× the time)",
    (_name, make, size) => {
      expect(growthRatio((output) => readOutput("checkstyle", output), make, size)).toBeLessThanOrEqual(6);
    },
    20_000,
  );
});
