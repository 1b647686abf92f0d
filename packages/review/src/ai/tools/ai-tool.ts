import type { ToolSpec } from "@reviewbot/contracts/chat";
import type { UntrustedKind } from "../untrusted-text.js";

/**
 * A tool the model may call during the review. `run` gets the model's arguments as parsed JSON
 * (untrusted: each tool validates them) and answers text for the model. An answer of an
 * `untrusted` kind (file contents, helper output, fetched pages: what a PR or the web controls)
 * is wrapped as data by the loop under that kind; a refusal (`ToolInputError`) is the loop's own
 * words and is not.
 */
export interface AiTool {
  readonly spec: ToolSpec;
  readonly untrusted: UntrustedKind;
  run(args: unknown, signal: AbortSignal): Promise<string>;
}
