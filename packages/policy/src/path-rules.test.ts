import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { MAX_RULE_GLOBS, parsePathRule } from "./path-rules.js";

const NAME = ".ai/rules/api.md";
const errorsOf = (text: string) => {
  const result = parsePathRule(NAME, text);
  return result.ok ? [] : result.errors.map((error) => error.message);
};

describe("parsePathRule", () => {
  it.each([
    ["the inline JSON array", '---\npaths: ["src/api/**", "*.sql"]\n---\nCheck every handler for auth.\n'],
    ["the block list", '---\npaths:\n  - "src/api/**"\n  - "*.sql"\n---\nCheck every handler for auth.\n'],
    [
      "CRLF line ends, a byte-order mark and trailing blanks",
      '\uFEFF---\r\npaths:  \r\n    - "src/api/**"\r\n    - "*.sql" \r\n---\r\n\r\nCheck every handler for auth.\r\n',
    ],
  ])("reads %s", (_name, text) => {
    expect(parsePathRule(NAME, text)).toEqual({ ok: true, value: { name: NAME, globs: ["src/api/**", "*.sql"], text: "Check every handler for auth." } });
  });

  it("keeps the rule text as it is past the front matter, `---` lines included", () => {
    const result = parsePathRule(NAME, '---\npaths: ["a/**"]\n---\n# API\n\n---\n\n- no raw SQL\n');
    expect(result).toMatchObject({ ok: true, value: { text: "# API\n\n---\n\n- no raw SQL" } });
  });

  const globs = (count: number) => `[${Array.from({ length: count }, (_, index) => `"g${index}/**"`).join(", ")}]`;

  it.each([
    ["an empty file", "", `${NAME}: must start with a front matter: a first line \`---\`, then \`paths: [...]\`, then \`---\``],
    ["no front matter", "Check auth.\n", `${NAME}: must start with a front matter: a first line \`---\`, then \`paths: [...]\`, then \`---\``],
    [
      "an unclosed front matter",
      '---\npaths: ["a/**"]\nCheck auth.\n',
      `${NAME}: has no closing \`---\` line within its first 23 lines (a front matter holds \`paths\` alone, at most 20 globs)`,
    ],
    ["no paths", "---\n---\nCheck auth.\n", `${NAME}: its front matter has no \`paths\``],
    ["an unknown key", '---\npaths: ["a/**"]\napplyTo: "b/**"\n---\nx\n', `${NAME}: front matter line 3: unknown key "applyTo" (only \`paths\` is allowed)`],
    ["paths twice", '---\npaths: ["a/**"]\npaths: ["b/**"]\n---\nx\n', `${NAME}: front matter line 3: \`paths\` is given twice`],
    ["a blank line", '---\npaths: ["a/**"]\n\n---\nx\n', `${NAME}: front matter line 3: is not \`paths: [...]\` or a \`  - "glob"\` list item: ""`],
    [
      "a comment",
      '---\n# api rules\npaths: ["a/**"]\n---\nx\n',
      `${NAME}: front matter line 2: is not \`paths: [...]\` or a \`  - "glob"\` list item: "# api rules"`,
    ],
    [
      "a bare scalar",
      "---\npaths: a/**\n---\nx\n",
      `${NAME}: front matter line 2: \`paths\` must be a JSON array of double-quoted globs or a block list on the next lines, not "a/**"`,
    ],
    [
      "single quotes",
      "---\npaths: ['a/**']\n---\nx\n",
      `${NAME}: front matter line 2: \`paths\` must be a JSON array of double-quoted globs or a block list on the next lines, not "['a/**']"`,
    ],
    [
      "a non-string element",
      '---\npaths: ["a/**", 3]\n---\nx\n',
      `${NAME}: front matter line 2: \`paths\` must be a JSON array of double-quoted globs or a block list on the next lines, not "[\\"a/**\\", 3]"`,
    ],
    [
      "an array split over lines",
      '---\npaths: ["a/**",\n  "b/**"]\n---\nx\n',
      `${NAME}: front matter line 2: \`paths\` must be a JSON array of double-quoted globs or a block list on the next lines, not "[\\"a/**\\","`,
      `${NAME}: front matter line 3: is not \`paths: [...]\` or a \`  - "glob"\` list item: "  \\"b/**\\"]"`,
    ],
    ["an unquoted list item", "---\npaths:\n  - a/**\n---\nx\n", `${NAME}: front matter line 3: a list item must be one double-quoted glob, not "- a/**"`],
    [
      "a list item after an inline list",
      '---\npaths: ["a/**"]\n  - "b/**"\n---\nx\n',
      `${NAME}: front matter line 3: a list item outside a \`paths:\` block list`,
    ],
    ["a list item before paths", '---\n  - "b/**"\npaths: ["a/**"]\n---\nx\n', `${NAME}: front matter line 2: a list item outside a \`paths:\` block list`],
    [
      "an unindented list item",
      '---\npaths:\n- "a/**"\n---\nx\n',
      `${NAME}: front matter line 3: is not \`paths: [...]\` or a \`  - "glob"\` list item: "- \\"a/**\\""`,
    ],
    ["an empty list", "---\npaths: []\n---\nx\n", `${NAME}: paths: lists no glob`],
    ["an empty block list", "---\npaths:\n---\nx\n", `${NAME}: paths: lists no glob`],
    ["too many globs", `---\npaths: ${globs(MAX_RULE_GLOBS + 1)}\n---\nx\n`, `${NAME}: paths: has more than ${MAX_RULE_GLOBS} globs`],
    [
      "an absolute glob",
      '---\npaths: ["/etc/**"]\n---\nx\n',
      `${NAME}: paths[0]: must be a relative path from the repository root without empty, . or .. segments`,
    ],
    [
      "a glob leaving the root",
      '---\npaths: ["a/../../**"]\n---\nx\n',
      `${NAME}: paths[0]: must be a relative path from the repository root without empty, . or .. segments`,
    ],
    [
      "a glob with a control character",
      '---\npaths: ["a\\u001b[31m/**"]\n---\nx\n',
      `${NAME}: paths[0]: may contain only letters, digits, spaces and . - _ / * ? @ + ~`,
    ],
    ["no rule text", '---\npaths: ["a/**"]\n---\n \n\n', `${NAME}: has no rule text after its front matter`],
  ])("refuses %s, by name", (_name, text, ...messages) => {
    expect(errorsOf(text)).toEqual(messages);
  });

  it("names every bad line of one front matter", () => {
    expect(errorsOf('---\nfoo: 1\npaths: ["a/**"]\nbar: 2\n---\nx\n')).toEqual([
      `${NAME}: front matter line 2: unknown key "foo" (only \`paths\` is allowed)`,
      `${NAME}: front matter line 4: unknown key "bar" (only \`paths\` is allowed)`,
    ]);
  });

  it("takes the most globs in either form", () => {
    const block = `---\npaths:\n${Array.from({ length: MAX_RULE_GLOBS }, (_, index) => `  - "g${index}/**"\n`).join("")}---\nx\n`;
    expect(parsePathRule(NAME, block)).toMatchObject({ ok: true, value: { globs: { length: MAX_RULE_GLOBS } } });
    expect(parsePathRule(NAME, `---\npaths: ${globs(MAX_RULE_GLOBS)}\n---\nx\n`)).toMatchObject({ ok: true, value: { globs: { length: MAX_RULE_GLOBS } } });
  });

  it.each([
    ["a long rule text", (n: number) => `---\npaths: ["a/**"]\n---\n${"Check the handler.\n".repeat(n)}`],
    ["one long front matter line", (n: number) => `---\npaths: ["${"a".repeat(n * 20)}"${" ".repeat(n * 20)}x\n---\nx\n`],
    ["a line of blanks", (n: number) => `---\n${" ".repeat(n * 20)}x\n---\nx\n`],
    ["no line end at all", (n: number) => `---${"-".repeat(n * 20)}`],
  ])(
    "parses %s in linear time",
    (_name, make) => {
      expect(growthRatio((text: string) => parsePathRule(NAME, text), make, 500)).toBeLessThanOrEqual(6);
    },
    60_000,
  );
});
