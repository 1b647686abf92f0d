import { z } from "zod";
import { isAppError } from "@reviewbot/core/errors";
import type { FetchedPage } from "@reviewbot/llm/fetch-allowlisted";
import type { AiTool } from "./ai-tool.js";
import { toolParameters } from "./tool-parameters.js";
import { ToolInputError } from "./tool-input-error.js";

const FetchArguments = z.strictObject({ url: z.string().min(1).max(2048) });

/**
 * `fetch_url`: documentation from hosts the operator allowlisted, read by the api's broker (the
 * worker and the model choose nothing about where the request goes). Offered only when the api
 * said so for this job: hosts are configured and the repository is public.
 */
export function fetchTool(fetch: (url: string, signal: AbortSignal) => Promise<FetchedPage>): AiTool {
  return {
    spec: {
      name: "fetch_url",
      description:
        "Fetches an https page from a documentation host the operator allowlisted (others are refused). Use it to check an API's documented behaviour.",
      parameters: toolParameters(FetchArguments),
    },
    untrusted: "fetched-page",
    async run(args, signal) {
      const parsed = FetchArguments.safeParse(args);
      if (!parsed.success) throw new ToolInputError('fetch_url: give {"url": "https://…"}');
      let page: FetchedPage;
      try {
        page = await fetch(parsed.data.url, signal);
      } catch (err) {
        // A page that cannot be had is an answer for the model, not a reason to fail the review.
        if (isAppError(err) && (err.code === "FETCH_FAILED" || err.code === "POLICY_DENIED")) throw new ToolInputError(`fetch_url: ${err.message}`);
        throw err;
      }
      return [
        `status: ${page.status}`,
        `content-type: ${page.contentType}`,
        ...(page.truncated ? ["(the page was cut at the size limit)"] : []),
        "",
        page.text,
      ].join("\n");
    },
  };
}
