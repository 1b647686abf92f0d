import { quote } from "@reviewbot/policy/config-error";
import type { FindingCollector } from "./finding-collector.js";

/** A JSON object as read from untrusted output: every value still to be checked. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The value at `keys` inside nested JSON objects (`member(d, "location", "range", "start")`), or
 * `undefined` as soon as a step is not an object or lacks the key: for walking optional nesting.
 */
export function member(value: unknown, ...keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    // `hasOwn` so that `constructor` or `__proto__` never resolve to Object.prototype.
    if (!isJsonObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** The result of reading one JSON document from a helper's output. */
export type JsonDocument = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

/**
 * Parses `text` as one JSON document without throwing. The problem quotes the engine's message
 * cut short (V8 echoes part of the input, which is untrusted), and covers the RangeError a very
 * deep nesting can raise.
 */
export function parseJsonDocument(text: string): JsonDocument {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : "unknown error";
    return { ok: false, problem: `output is not valid JSON (${quote(reason, 120)})` };
  }
}

/**
 * `text` without a leading UTF-8 byte-order mark (U+FEFF), which .NET and PowerShell tools write
 * by default and `JSON.parse` refuses (a whole SARIF log was read as "not valid JSON").
 */
export function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The JSON document a helper printed, or `undefined` when there is nothing to read: empty output
 * (a clean run of some tools) or invalid JSON, which is noted on `collector`. A byte-order mark
 * is skipped.
 */
export function readJsonOutput(output: string, collector: Pick<FindingCollector, "problem">): unknown {
  const text = stripByteOrderMark(output);
  if (text.trim() === "") return undefined;
  const document = parseJsonDocument(text);
  if (!document.ok) collector.problem(document.problem);
  return document.ok ? document.value : undefined;
}

/**
 * The array a JSON output is about: the document itself (`key` null) or its member `key`, with
 * the document for other top-level fields. `undefined` when there is nothing to read; output that
 * is not JSON or has no such array is noted on `collector` (the note says what was expected).
 */
export function readJsonArray(
  output: string,
  collector: Pick<FindingCollector, "problem">,
  key: string | null,
  expected: string,
): { readonly document: unknown; readonly items: readonly unknown[] } | undefined {
  const document = readJsonOutput(output, collector);
  if (document === undefined) return undefined;
  const items = key === null ? document : member(document, key);
  if (Array.isArray(items)) return { document, items };
  collector.problem(expected);
  return undefined;
}
