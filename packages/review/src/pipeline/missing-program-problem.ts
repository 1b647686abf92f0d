import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { SANDBOX_WORKTREE } from "@reviewbot/policy/helper-command";
import type { HelperImage } from "@reviewbot/policy/helper-image";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { SandboxResult } from "@reviewbot/sandbox/sandbox-spec";
import { missingProgram, shebangInterpreter } from "./missing-program.js";

/** Who ran the program: a helper of `.ai/review-tools.json`, or the context script. */
export type ProgramOwner = "helper" | "context-script";

export interface ProgramContext {
  /** The argv as the policy resolved it (`.ai` paths under `/work`), before an engine relocated it. */
  readonly argv: readonly string[];
  /** The host path of the worktree, to read the `#!` line of a script under `/work`. */
  readonly worktree: string;
  readonly image: HelperImage;
  readonly operator: Pick<OperatorPolicy, "images" | "defaultImage">;
  readonly owner: ProgramOwner;
}

/**
 * When a run failed because its program is not in its image, the one line that says which program,
 * which image, and what to do (it used to be "exited 1 without findings", the reason only
 * in stderr); otherwise null. A script of the base's `.ai/` whose `#!` interpreter is missing is
 * reported by its interpreter: that is the program the image lacks.
 */
export async function missingProgramProblem(result: SandboxResult, context: ProgramContext): Promise<string | null> {
  const named = missingProgram(result, context.argv);
  if (named === null) return null;
  const interpreter = named === context.argv[0] ? await scriptInterpreter(named, context.worktree) : null;
  const program = interpreter ?? named;
  const script = interpreter === null ? "" : ` (the interpreter of ${named.slice(SANDBOX_WORKTREE.length + 1)})`;
  return `program \`${program}\`${script} is not in image \`${context.image.name}\` (${context.image.reference}): ${advice(program, context)}`;
}

function advice(program: string, { image, operator, owner }: ProgramContext): string {
  const images = Object.keys(operator.images).sort().join(", ");
  if (owner === "context-script") {
    return `the context script runs in the operator's defaultImage; the operator sets defaultImage to an image that has \`${program}\` (images: ${images}), or the script uses only what \`${image.name}\` has (docs/review.md, "Serge configs")`;
  }
  if (image.name === operator.defaultImage) {
    return `a helper without "image" runs in the operator's defaultImage; name an image that has \`${program}\` in the helper's "image" (images: ${images}), or the operator sets defaultImage to one (docs/review.md, "Serge configs")`;
  }
  return `name an image that has \`${program}\` in the helper's "image" (images: ${images}), or ask the operator to add one`;
}

// A script of the base's `.ai/`, read on the host: its `#!` interpreter, when it has one.
async function scriptInterpreter(program: string, worktree: string): Promise<string | null> {
  if (!program.startsWith(`${SANDBOX_WORKTREE}/.ai/`)) return null;
  // Not through a symlink: only the file the base commit has at that path.
  const path = join(worktree, program.slice(SANDBOX_WORKTREE.length + 1));
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (file === null) return null;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const interpreter = shebangInterpreter(head.subarray(0, bytesRead).toString("utf8"));
    return interpreter !== null && /^[A-Za-z0-9_./+-]{1,256}$/.test(interpreter) ? interpreter : null;
  } finally {
    await file.close();
  }
}
