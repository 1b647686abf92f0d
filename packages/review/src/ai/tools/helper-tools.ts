import { z } from "zod";
import type { ResolvedHelper } from "@reviewbot/policy/resolve-helper";
import { MAX_RUNTIME_ARG_LENGTH } from "@reviewbot/policy/runtime-args";
import type { HelperReport } from "../../pipeline/report.js";
import type { AiTool } from "./ai-tool.js";
import { ToolInputError } from "./tool-input-error.js";

// The policy checks each argument (buildHelperArgv); here only the shape.
const HelperArguments = z.strictObject({ args: z.array(z.unknown()).max(64).optional() });

/** Helper runs one AI review may ask for: each is a sandbox of up to the helper's timeout. */
export const MAX_HELPER_CALLS = 20;

/** The most findings listed in one helper call's answer; the count says how many more. */
const MAX_LISTED_FINDINGS = 100;

/**
 * The repository's helpers as tools. A helper that allows arguments takes `args` (at most its
 * `max_args`, each checked again by the policy's `buildHelperArgv`: `--` before them, no `.ai`,
 * no control characters); one that does not takes nothing. Each call is a fresh sandbox, as in the
 * pipeline, and a review runs at most {@link MAX_HELPER_CALLS} of them (a model talked into
 * calling helpers in a loop costs sandboxes, not only tokens). A helper whose name is one of ours
 * (`builtin`) is not offered: the built-in wins and the model is never confused about which ran.
 */
export function helperTools(
  helpers: readonly ResolvedHelper[],
  run: (helper: ResolvedHelper, args: readonly unknown[]) => Promise<HelperReport>,
  builtin: ReadonlySet<string>,
): AiTool[] {
  let calls = 0;
  return helpers
    .filter((helper) => !builtin.has(helper.name))
    .map((helper) => ({
      spec: {
        name: helper.name,
        description: `Runs the repository's helper \`${helper.name}\` in a sandbox on the PR's code: ${helper.description}`.slice(0, 4000),
        parameters: parameters(helper),
      },
      untrusted: "helper-output",
      async run(args) {
        const parsed = HelperArguments.safeParse(args ?? {});
        if (!parsed.success) throw new ToolInputError(`${helper.name}: the arguments must be an object with an optional "args" array of strings`);
        calls += 1;
        if (calls > MAX_HELPER_CALLS) throw new ToolInputError(`${helper.name}: not run: this review's ${MAX_HELPER_CALLS} helper runs are used`);
        return describeRun(await run(helper, parsed.data.args ?? []));
      },
    }));
}

function parameters(helper: ResolvedHelper): Record<string, unknown> {
  if (!helper.allowArgs) return { type: "object", properties: {}, additionalProperties: false };
  return {
    type: "object",
    properties: {
      args: {
        type: "array",
        items: { type: "string", maxLength: MAX_RUNTIME_ARG_LENGTH },
        maxItems: helper.maxArgs,
        description: "Arguments appended after `--` (paths, patterns); at most max_args.",
      },
    },
    additionalProperties: false,
  };
}

/** The helper's outcome and findings (already sanitised and capped by the pipeline), then its output. */
function describeRun(report: HelperReport): string {
  const lines = [`outcome: ${report.outcome}${report.error === undefined ? "" : ` (${report.error})`}`, `findings: ${report.findings.length}`];
  for (const finding of report.findings.slice(0, MAX_LISTED_FINDINGS)) {
    lines.push(`${finding.path}:${finding.line ?? "-"}: ${finding.severity}${finding.rule === null ? "" : ` [${finding.rule}]`}: ${finding.message}`);
  }
  if (report.findings.length > MAX_LISTED_FINDINGS) lines.push(`(${report.findings.length - MAX_LISTED_FINDINGS} more findings not listed)`);
  if (report.findings.length === 0 && report.stdout !== "") lines.push("stdout:", report.stdout);
  if (report.stderr !== "") lines.push("stderr:", report.stderr);
  return lines.join("\n");
}
