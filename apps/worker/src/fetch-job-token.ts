import { AppError } from "@reviewbot/core/errors";

export interface TokenBroker {
  /** The API's base URL (REVIEWBOT_API_URL). */
  readonly apiUrl: string;
  /** The bearer secret workers present (REVIEWBOT_WORKER_CREDENTIAL). */
  readonly credential: string;
  readonly timeoutMs: number;
}

/**
 * Asks the API's token broker for the installation token of a running job (read-only, scoped to
 * the job's repository). The broker answers only while the job is active in the review queue.
 */
export async function fetchJobToken(broker: TokenBroker, jobId: string): Promise<string> {
  const url = new URL("internal/token", broker.apiUrl.endsWith("/") ? broker.apiUrl : `${broker.apiUrl}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${broker.credential}`, "content-type": "application/json" },
      body: JSON.stringify({ jobId }),
      signal: AbortSignal.timeout(broker.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    throw new AppError("GITHUB_API_FAILED", "token broker unreachable", { cause: err });
  }
  if (response.status === 401) throw new AppError("UNAUTHENTICATED", "the token broker refused the worker credential");
  if (response.status === 403) throw new AppError("TOKEN_DENIED", "the token broker refused a token for this job");
  if (!response.ok) throw new AppError("GITHUB_API_FAILED", `token broker answered ${response.status}`);
  const body = (await response.json().catch(() => null)) as { token?: unknown } | null;
  if (typeof body?.token !== "string" || body.token.length === 0) throw new AppError("GITHUB_API_FAILED", "token broker answered without a token");
  return body.token;
}
