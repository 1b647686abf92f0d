import { readFileSync } from "node:fs";
import { seededRandom } from "@reviewbot/core/testing/growth-ratio";

/** Benign and hostile helper output of one format, each about `size` characters. */
export interface ParserInputs {
  readonly benign: (size: number) => string;
  readonly hostile: (size: number) => string;
}

/** A path just under the 4,096-character cap, shared by every finding of a hostile output. */
export const LONG_PATH = `/work/${"deep/".repeat(800)}app.js`;

const fixture = (name: string): string => readFileSync(new URL(`../../packages/review/src/findings/fixtures/${name}`, import.meta.url), "utf8");

/** Items joined by `separator` until the text is at least `size` characters long. */
function repeatTo(size: number, seed: number, separator: string, item: (index: number, random: () => number) => string): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  for (let index = 0, length = 0; length < size; index += 1) {
    const part = item(index, random);
    parts.push(part);
    length += part.length + separator.length;
  }
  return parts.join(separator);
}

// Whitespace runs around newlines and tabs, escape sequences, placeholders, entity-like text.
const HOSTILE_PIECES = [" ", "  ", "\t", "\n", " \n ", "\u001b[31m", "\u001b]8;;", "{0}", "{{", "}", "&amp", "x", "[", "]"];

function hostileText(seed: number, length: number): string {
  return repeatTo(length, seed, "", (_index, random) => HOSTILE_PIECES[Math.floor(random() * HOSTILE_PIECES.length)] ?? "").slice(0, length);
}

const xml = (text: string): string => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll('"', "&quot;").replaceAll("\u001b", "");

const eslintFile = (path: string, messages: string): string => `[{"filePath":${JSON.stringify(path)},"messages":[${messages}]}]`;
const eslintMessage = (index: number, message: string): string =>
  JSON.stringify({ ruleId: "no-undef", severity: 2, message, line: index + 1, column: 1, endLine: index + 1 });
const ruffViolation = (index: number, filename: string, message: string): string =>
  JSON.stringify({ code: "E501", filename, message, location: { row: index + 1, column: 1 }, end_location: { row: index + 1, column: 80 } });
const diagnostic = (index: number, path: string, message: string): string =>
  JSON.stringify({ message, location: { path, range: { start: { line: index + 1, column: 1 } } }, severity: "ERROR", code: { value: "x" } });

/** The inputs of each findings format, and of the output sanitiser, by name. */
export const PARSER_INPUTS: Readonly<Record<string, ParserInputs>> = {
  errorformat: {
    benign: (size) =>
      repeatTo(size, 1, "\n", (index) => [fixture("flake8.txt"), fixture("pylint.txt"), fixture("ruff-full.txt"), fixture("clippy.txt")][index % 4] ?? ""),
    hostile: (size) => {
      const part = Math.floor(size / 12);
      return [
        `a.py:1:${" ".repeat(part)}\u2028`,
        `a.py:1: error: x${" ".repeat(part)}y`,
        `a.py:1: error: x${" ".repeat(part)}[${"a".repeat(part)}]`,
        `a.py:${"1".repeat(part)}x`,
        ":1".repeat(part / 2),
        `${"a".repeat(part)}(1,`,
        ` --> ${":".repeat(part)}`,
        ` --> a:${"1".repeat(part)}`,
        `a.py:1: [C0114(${"x".repeat(part)}`,
        `1 ${"|".repeat(part)}`,
        hostileText(11, 2 * part),
      ].join("\n");
    },
  },
  "eslint-json": {
    benign: (size) =>
      eslintFile(
        "/work/src/app.js",
        repeatTo(size, 2, ",", (index) => eslintMessage(index, "'x' is assigned a value but never used.")),
      ),
    hostile: (size) =>
      eslintFile(
        LONG_PATH,
        repeatTo(size - LONG_PATH.length, 3, ",", (index) => eslintMessage(index, hostileText(index, 40))),
      ),
  },
  "ruff-json": {
    benign: (size) => `[${repeatTo(size, 4, ",", (index) => ruffViolation(index, `/work/src/module_${index % 50}.py`, "Line too long (101 > 88)"))}]`,
    hostile: (size) => `\ufeff[${repeatTo(size, 5, ",", (index) => ruffViolation(index, "/work/a.py", hostileText(index, 200)))}]`,
  },
  sarif: {
    benign: (size) =>
      sarifLog(
        {},
        repeatTo(size, 6, ",", (index) => sarifResult(index, { text: "Avoid eval() on untrusted input." }, { uri: `src/module_${index % 50}.py` })),
      ),
    hostile: (size) =>
      sarifLog(
        { originalUriBaseIds: { ROOT: { uri: `file:///work/${"deep/".repeat(780)}` } }, messageStrings: { m: { text: `${hostileText(1, 20_000)}{0}{0}{0}` } } },
        repeatTo(size - 24_000, 7, ",", (index) => sarifResult(index, { id: "m", arguments: [hostileText(index, 30)] }, { uri: "a.py", uriBaseId: "ROOT" })),
      ),
  },
  rdjsonl: {
    benign: (size) => repeatTo(size, 8, "\n", (index) => diagnostic(index, `src/module_${index % 50}.js`, "Unexpected 'debugger' statement.")),
    hostile: (size) => repeatTo(size, 9, "\n", (index) => diagnostic(index, "src/a.js", hostileText(index, 300))),
  },
  rdjson: {
    benign: (size) =>
      `{"diagnostics":[${repeatTo(size, 10, ",", (index) => diagnostic(index, `src/module_${index % 50}.js`, "Unexpected 'debugger' statement."))}]}`,
    hostile: (size) =>
      `{"diagnostics":[${repeatTo(size - LONG_PATH.length, 11, ",", (index) => diagnostic(index, index === 0 ? LONG_PATH : "src/a.js", hostileText(index, 300)))}]}`,
  },
  checkstyle: {
    benign: (size) =>
      `<checkstyle><file name="/work/src/App.java">${repeatTo(size, 12, "\n", (index) => `<error line="${index + 1}" column="1" severity="warning" message="Missing a Javadoc comment." source="c.MissingJavadoc"/>`)}</file></checkstyle>`,
    hostile: (size) =>
      `<checkstyle><file name="${LONG_PATH}">${repeatTo(
        size - LONG_PATH.length,
        13,
        "\n",
        (index) => `<error${" ".repeat(index % 50)} line="${index + 1}"\tseverity="error" message="${xml(hostileText(index, 200))}" source="s"/>`,
      )}</file></checkstyle>`,
  },
  sanitise: {
    benign: (size) => repeatTo(size, 14, "\n", (index) => (index % 2 === 0 ? fixture("flake8.txt") : fixture("pylint.txt"))),
    hostile: (size) => hostileText(15, size),
  },
};

function sarifLog(run: { originalUriBaseIds?: unknown; messageStrings?: unknown }, results: string): string {
  const rules = [{ id: "R", ...(run.messageStrings === undefined ? {} : { messageStrings: run.messageStrings }) }];
  const head = {
    version: "2.1.0",
    runs: [{ tool: { driver: { name: "t", rules } }, ...(run.originalUriBaseIds === undefined ? {} : { originalUriBaseIds: run.originalUriBaseIds }) }],
  };
  return JSON.stringify(head).replace(/\}\]\}$/, `,"results":[${results}]}]}`);
}

function sarifResult(index: number, message: unknown, artifactLocation: unknown): string {
  return JSON.stringify({ ruleIndex: 0, level: "warning", message, locations: [{ physicalLocation: { artifactLocation, region: { startLine: index + 1 } } }] });
}

/** 1 MiB of ESLint output whose messages all share one long filePath (it once took 1.6 GB of heap). */
export function sharedPathEslint(): string {
  return eslintFile(
    LONG_PATH,
    repeatTo((1 << 20) - LONG_PATH.length, 16, ",", (index) => eslintMessage(index, "m")),
  );
}
