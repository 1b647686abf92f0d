import type { Octokit } from "@octokit/core";
import { AppError } from "@reviewbot/core/errors";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import type { z } from "zod";

export type GraphqlDetails = Readonly<Record<string, unknown>>;

/**
 * One GraphQL call through `octokit.graphql`, which also finds GHES's `/api/graphql` from an
 * `/api/v3` base URL. GraphQL errors (HTTP 200 with `errors`: `GraphqlResponseError`) and HTTP
 * failures are `GITHUB_API_FAILED`, naming GitHub's messages when it gave some.
 */
export async function askGraphql(octokit: Octokit, query: string, variables: Record<string, unknown>, what: string, details: GraphqlDetails): Promise<unknown> {
  try {
    return await octokit.graphql<unknown>(query, variables);
  } catch (error) {
    const { name, errors, status } = error as { name?: unknown; errors?: unknown; status?: unknown };
    // Recognised by name: @octokit/graphql is core's dependency, not ours.
    const messages =
      name === "GraphqlResponseError" && Array.isArray(errors) ? errors.map((e) => String((e as { message?: unknown } | null)?.message)).join("; ") : null;
    throw new AppError("GITHUB_API_FAILED", messages === null ? `the ${what} failed` : `GitHub refused the ${what}: ${messages}`, {
      cause: error,
      details: { ...details, status },
    });
  }
}

/** GitHub's answer through `schema`, or `GITHUB_API_FAILED` naming the first field that did not match. */
export function checkedAnswer<T extends z.ZodType>(schema: T, answer: unknown, what: string, details: GraphqlDetails): z.infer<T> {
  return parseOrThrow(schema, answer, "GITHUB_API_FAILED", {
    message: (problem) => `GitHub's answer to the ${what} has the wrong shape at ${problem}`,
    details,
  });
}
