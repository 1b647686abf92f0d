import { z } from "zod";
import { Severity } from "@reviewbot/contracts/severity";
import { quote, WithoutProtoKey } from "./config-error.js";
import { DEFAULT_MAX_ARGS, MAX_ARGS_CEILING } from "./runtime-args.js";
import { findUnsafeCharacter } from "./unsafe-text.js";

/** A helper's name: also its tool name for the LLM and a label on its sandbox. */
export const HELPER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** The most entries a helper's `command` may have. */
export const MAX_COMMAND_ENTRIES = 64;
/** The longest string anywhere in a helper spec except `description`. */
export const MAX_VALUE_LENGTH = 1024;
/** The longest `description`. */
export const MAX_DESCRIPTION_LENGTH = 1000;
/** The most entries a `severity` map may have. */
export const MAX_SEVERITY_ENTRIES = 200;

/** How a helper's output is parsed into findings. */
export const OutputFormat = z.enum(["sarif", "checkstyle", "rdjson", "rdjsonl", "eslint-json", "ruff-json", "errorformat", "text"]);
export type OutputFormat = z.infer<typeof OutputFormat>;

const text = (max: number) =>
  z
    .string()
    .max(max, `is longer than ${max} characters`)
    .refine((value) => !value.includes("\0"), "contains a NUL byte");

const safeKey = z
  .string()
  .min(1, "is empty")
  .max(200, "is longer than 200 characters")
  .superRefine((key, ctx) => {
    const unsafe = findUnsafeCharacter(key);
    if (unsafe !== undefined) ctx.addIssue({ code: "custom", message: unsafe });
  });

/**
 * Severity mapping: keys are a rule id reported by the tool (`E501`, `no-unused-vars`), a level
 * the tool reports (`info`, `convention`), or `default`; values are the level to report. The
 * parser looks a finding up by rule id, then by the tool's level, then `default`, and otherwise
 * keeps its own mapping.
 */
export const SeverityMap = WithoutProtoKey.pipe(z.record(safeKey, Severity))
  .refine((map) => Object.keys(map).length <= MAX_SEVERITY_ENTRIES, `has more than ${MAX_SEVERITY_ENTRIES} entries`)
  .readonly();
export type SeverityMap = z.infer<typeof SeverityMap>;

const argv = z.array(text(MAX_VALUE_LENGTH));

/**
 * One entry of `helpers` in `.ai/review-tools.json`: the ai-reviewer/serge keys plus ours
 * (`image`, `format`, `severity`, `args_separator`, `memory_mb`, `cpus`, `pids`). `max_args` may
 * be 0 (serge writes `"allow_args": false, "max_args": 0`), but not with `allow_args` true. This
 * is the shape only; `resolveHelper` applies the command, install, image and limit rules.
 */
export const HelperSpec = z
  .strictObject({
    name: z.string().regex(HELPER_NAME, {
      error: (issue) => `${quote(String(issue.input))} does not match ${String(HELPER_NAME)}`,
    }),
    description: text(MAX_DESCRIPTION_LENGTH),
    command: argv.max(MAX_COMMAND_ENTRIES, `has more than ${MAX_COMMAND_ENTRIES} entries`),
    cwd: text(MAX_VALUE_LENGTH).optional(),
    allow_args: z.boolean().default(false),
    // 0 is serge's way of saying "no arguments" beside `allow_args: false` (checked below).
    max_args: z.int().min(0).max(MAX_ARGS_CEILING).default(DEFAULT_MAX_ARGS),
    args_separator: z.boolean().default(true),
    timeout_seconds: z.number().optional(),
    install: argv.optional(),
    image: text(MAX_VALUE_LENGTH).optional(),
    format: OutputFormat.default("text"),
    severity: SeverityMap.optional(),
    memory_mb: z.number().optional(),
    cpus: z.number().optional(),
    pids: z.number().optional(),
  })
  .superRefine((spec, ctx) => {
    // Arguments allowed but none accepted is a contradiction, not a policy: say so rather than
    // let every call be refused at run time.
    if (spec.allow_args && spec.max_args === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["max_args"],
        message: "is 0 while allow_args is true: no argument could be passed; set allow_args to false or max_args to at least 1",
      });
    }
  });
export type HelperSpec = z.infer<typeof HelperSpec>;
