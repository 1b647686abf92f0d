import type { CheckoutRequest } from "@reviewbot/overlay/clone-cache";
import type { ReviewJob } from "@reviewbot/contracts/review-job";

/** Where one job's PR is fetched from, and with which (short-lived) credentials. */
export interface SourceCheckout {
  readonly request: Pick<CheckoutRequest, "remote" | "head" | "base" | "config" | "credentials">;
  /** Secret values to scrub from everything the report keeps (the job's token). */
  readonly secrets: readonly string[];
  /** Forgets the job's secrets once the job is over. Idempotent. */
  release(): void;
}

/**
 * Resolves a review job to a checkout: GitHub with the job's token from the api's claim, or a
 * directory of local repositories under the embedded defaults.
 */
export interface ReviewSource {
  readonly name: "github" | "local";
  /** The clone cache's allowed protocols for this source's remotes. */
  readonly protocols: readonly string[];
  /** `job` and `token` are the api's answer to the worker's claim (the token is null without a GitHub App). */
  resolve(job: ReviewJob, token: string | null): Promise<SourceCheckout>;
}
