import { readFile } from "node:fs/promises";
import { AppError } from "@reviewbot/core/errors";
import { parseOperatorPolicy, type OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { RuntimeConfig } from "./runtime-config.js";

/**
 * The operator policy: defaults, or the JSON file REVIEWBOT_POLICY_FILE names, validated strictly.
 *
 * @throws AppError `CONFIG_INVALID` when the file cannot be read or is not JSON; the policy
 * parser's own error when it does not match the schema.
 */
export async function loadOperatorPolicy(config: Pick<RuntimeConfig, "REVIEWBOT_POLICY_FILE">): Promise<OperatorPolicy> {
  const file = config.REVIEWBOT_POLICY_FILE;
  if (file === undefined) return parseOperatorPolicy({});
  const text = await readFile(file, "utf8").catch((err: unknown) => {
    throw new AppError("CONFIG_INVALID", `REVIEWBOT_POLICY_FILE: cannot read ${file}`, { cause: err });
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new AppError("CONFIG_INVALID", `REVIEWBOT_POLICY_FILE: ${file} is not valid JSON`, { cause: err });
  }
  return parseOperatorPolicy(json);
}
