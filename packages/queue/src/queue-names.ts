/** The review queue: API and resolver write, workers read. */
export const REVIEW_QUEUE = "reviews";

/**
 * The GitHub queue: workers and the API write, the publisher (which holds the App key) reads.
 * It carries "review started", "review finished" and "resolve this PR" tasks.
 */
export const GITHUB_QUEUE = "github";
