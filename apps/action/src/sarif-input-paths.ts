import { z } from "zod";

/** More files than this in `sarif-input` is a mistake in the workflow, not a scan. */
export const MAX_SARIF_INPUTS = 20;

/**
 * Input `sarif-input`: one or more paths, one a line or separated by commas, each relative to
 * GITHUB_WORKSPACE (the workflow's `output:` of CodeQL's analyze step, Semgrep's `--output`).
 * The workflow's own choice, so a bad value stops the run like any bad input: a path that climbs
 * (`..`), is absolute, or holds a control character is refused here; where the file really is
 * (a symbolic link left by an earlier step) is checked when it is opened.
 */
export const SarifInputPaths = z
  .string()
  .transform((value) =>
    value
      .split(/[\n,]/)
      .map((path) => path.trim())
      .filter((path) => path !== ""),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .max(4096)
          // eslint-disable-next-line no-control-regex -- a control character in a path is the point
          .refine((path) => !/[\u0000-\u001f\u007f]/.test(path), "a path holds a control character")
          .refine((path) => !path.startsWith("/"), "a path must be relative to GITHUB_WORKSPACE")
          .refine((path) => !path.split(/[/\\]/).includes(".."), "a path must not climb out of GITHUB_WORKSPACE (`..`)"),
      )
      .max(MAX_SARIF_INPUTS, `at most ${String(MAX_SARIF_INPUTS)} files`),
  );
