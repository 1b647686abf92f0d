/**
 * A SARIF log shaped like Semgrep OSS's (`semgrep scan --sarif`, 1.124): one compact line; a run
 * with `invocations`, the `results` and a driver listing every rule of the configuration with its
 * descriptions, help (text and Markdown), help URI and tags. The rules are what makes real logs
 * 2–3 MB whatever the number of results. Generated, with made-up text: the real logs' rule texts
 * come from the Semgrep Registry, whose licence does not let us redistribute them (see
 * packages/review/src/findings/fixtures/SOURCES.md).
 */

const WORDS = [
  "input",
  "untrusted",
  "query",
  "string",
  "data",
  "call",
  "value",
  "function",
  "user",
  "request",
  "may",
  "lead",
  "to",
  "injection",
  "avoid",
  "use",
  "a",
  "safe",
  "library",
  "instead",
  "of",
  "raw",
  "the",
  "server",
  "path",
  "check",
];

/** One result of the log: a rule (by index) at a line of a repository file. */
export interface SemgrepResult {
  readonly uri: string;
  readonly line: number;
  readonly rule: number;
}

// A deterministic sentence of `count` words (a linear congruential generator seeded by `seed`).
function sentence(seed: number, count: number): string {
  let state = seed * 2_654_435_761 + 1;
  const words: string[] = [];
  for (let i = 0; i < count; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    words.push(WORDS[state % WORDS.length] ?? "x");
  }
  return `${words.join(" ")}.`;
}

const ruleId = (index: number): string => `python.lang.security.generated.rule-${String(index)}.rule-${String(index)}`;

function rule(index: number): unknown {
  const text = `${sentence(index, 40)} ${sentence(index + 1, 40)}`;
  const uri = `https://semgrep.example/r/${ruleId(index)}`;
  return {
    defaultConfiguration: { level: index % 3 === 0 ? "error" : "warning" },
    fullDescription: { text },
    help: {
      markdown: `${text}\n\n<b>References:</b>\n - [Semgrep Rule](${uri})\n - [https://owasp.example/Top10/A03_2021-Injection](https://owasp.example/Top10/A03_2021-Injection)\n`,
      text,
    },
    helpUri: uri,
    id: ruleId(index),
    name: ruleId(index),
    properties: {
      precision: "very-high",
      tags: ["CWE-95: Improper Neutralization of Directives", "MEDIUM CONFIDENCE", "OWASP-A03:2021 - Injection", "security"],
    },
    shortDescription: { text: `Semgrep Finding: ${ruleId(index)}` },
  };
}

function result({ uri, line, rule: index }: SemgrepResult): unknown {
  return {
    fingerprints: { "matchBasedId/v1": "requires login" },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri, uriBaseId: "%SRCROOT%" },
          region: { endColumn: 20, endLine: line, snippet: { text: "    eval(user_input)" }, startColumn: 5, startLine: line },
        },
      },
    ],
    message: { text: `rule ${String(index)}: ${sentence(index, 30)}` },
    properties: {},
    ruleId: ruleId(index),
  };
}

/** The rule id the log gives a result of rule `index`. */
export const semgrepRuleId = ruleId;

/**
 * A Semgrep-shaped SARIF log of at least `bytes` bytes (rules are added until it is), with
 * `results` as its results.
 */
export function semgrepSarif(results: readonly SemgrepResult[], bytes: number): string {
  const rules: unknown[] = [];
  let size = 0;
  while (size < bytes) {
    const next = rule(rules.length);
    rules.push(next);
    size += JSON.stringify(next).length + 1;
  }
  const run = {
    invocations: [{ executionSuccessful: true, toolExecutionNotifications: [] }],
    results: results.map(result),
    tool: { driver: { name: "Semgrep OSS", rules, semanticVersion: "1.124.1" } },
  };
  return `${JSON.stringify({ version: "2.1.0", runs: [run], $schema: "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json" })}\n`;
}
