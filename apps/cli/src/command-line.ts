import { parseArgs } from "node:util";
import { AppError } from "@reviewbot/core/errors";
import type { CheckoutArgs } from "./checkout-command.js";

export const USAGE = `usage: reviewbot <command> [options]

  checkout --repo <path-or-url> --base <ref> --head <ref> [--format text|json]
             fetch base and head into the clone cache, apply the trusted .ai/ overlay
             (the base commit's .ai/ replaces the PR's) and print the result and the diff
  doctor     probe every configured sandbox engine from inside a sandbox and say which one
             the configured sandbox mode would use; exit 1 when the mode cannot be met
`;

export type Command = { readonly name: "checkout"; readonly args: CheckoutArgs } | { readonly name: "doctor" };

/** Parses argv strictly; anything unexpected is a USAGE error naming it. */
export function parseCommandLine(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        repo: { type: "string" },
        base: { type: "string" },
        head: { type: "string" },
        format: { type: "string", default: "text" },
      },
    });
  } catch (err) {
    throw new AppError("USAGE", err instanceof Error ? err.message : String(err));
  }
  const [name, ...rest] = parsed.positionals;
  if (rest.length > 0) throw new AppError("USAGE", `unexpected argument "${rest.join(" ")}"`);
  if (name === "doctor") return { name };
  if (name !== "checkout") throw new AppError("USAGE", name === undefined ? "no command given" : `unknown command "${name}"`);
  const { repo, base, head, format } = parsed.values;
  if (repo === undefined || base === undefined || head === undefined) {
    throw new AppError("USAGE", "--repo, --base and --head are required");
  }
  if (format !== "text" && format !== "json") throw new AppError("USAGE", `--format must be text or json, not "${format}"`);
  return { name, args: { repo, base, head, format } };
}
