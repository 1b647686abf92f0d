import { z } from "zod";
import { HELPER_NAME } from "@reviewbot/policy/helper-spec";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import { Severity } from "@reviewbot/contracts/severity";
import type { ExtractedFindings, ExtractRequest } from "./extract-findings.js";
import { MAX_POSITION, MAX_PROBLEMS } from "./finding-collector.js";
import { MAX_PATH_LENGTH } from "./map-path.js";
import { MAX_FINDING_INPUT } from "./sanitise-output.js";

const position = z.int().positive().max(MAX_POSITION).nullable();
// A sanitised message or rule is at most MAX_FINDING_TEXT code points: up to twice as many units.
const text = z.string().max(MAX_FINDING_INPUT);
// A note names where and why, quoting a bounded piece of the output: a path (escaped) at most.
const note = z.string().max(4 * MAX_PATH_LENGTH);

/**
 * What the parse process sent back, checked against what the worker asked of it before it is
 * used: the process read hostile bytes, so its answer is held to the contract `extractFindings`
 * keeps (each finding's fields typed and bounded, the helper it was asked about, at most
 * `maxFindings` findings, the parsers' and mapping's problem notes counted) rather than trusted.
 *
 * @throws AppError `INTERNAL` naming the first field that does not match (our own parser never
 *   sends one: a mismatch is a bug or a subverted process).
 */
export function checkedParseResult(message: unknown, request: Pick<ExtractRequest, "helper" | "maxFindings" | "toolAsSource">): ExtractedFindings {
  const finding = z.strictObject({
    path: z.string().min(1).max(MAX_PATH_LENGTH),
    line: position,
    endLine: position,
    column: position,
    severity: Severity,
    message: text,
    rule: text.nullable(),
    // A SARIF run's tool, made a helper name (`sarifToolSource`), when asked for; else the helper.
    helper: request.toolAsSource === true ? z.string().regex(HELPER_NAME) : z.literal(request.helper),
  });
  const result = z.strictObject({
    findings: z.array(finding).max(request.maxFindings),
    // The parser's notes (MAX_PROBLEMS and a count), then the unmapped paths' (the same again).
    problems: z.array(note).max(2 * (MAX_PROBLEMS + 1)),
    dropped: z.int().nonnegative(),
  });
  return parseOrThrow(result, message, "INTERNAL");
}
