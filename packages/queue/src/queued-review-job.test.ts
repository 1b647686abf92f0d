import { describe, expect, it } from "vitest";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { QueueSeal } from "./queue-seal.js";
import { MAX_SEALED_JOB_BYTES, openReviewJob, readReviewJob } from "./queued-review-job.js";

const seal = QueueSeal.fromSecret("webhook-secret-0123456789");

/** Every field of the contract at its longest. */
const LARGEST: ReviewJob = {
  installationId: Number.MAX_SAFE_INTEGER,
  repositoryId: Number.MAX_SAFE_INTEGER,
  repository: `${"o".repeat(39)}/${"n".repeat(100)}`,
  pullNumber: Number.MAX_SAFE_INTEGER,
  headSha: "a".repeat(40),
  baseSha: "b".repeat(40),
  baseRef: "r".repeat(255),
  defaultBranch: "d".repeat(255),
  pullUpdatedAt: "2026-11-27T10:00:00.000000000+14:00",
  headFrom: "event",
  repositoryPrivate: false,
  deliveryId: "x".repeat(100),
  trigger: "review_comment",
  reply: { commentId: Number.MAX_SAFE_INTEGER, threadId: Number.MAX_SAFE_INTEGER },
  // Escaped quotes (twice: the job is JSON inside the seal's JSON) and three-byte characters.
  pull: { draft: true, labels: Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? '"'.repeat(50) : "\u20ac".repeat(50))), authorBot: true },
};

describe("sealed review jobs", () => {
  it("the largest job the contract allows, sealed, is within MAX_SEALED_JOB_BYTES", () => {
    const stored = JSON.stringify(seal.seal("review.1.2.d", LARGEST));
    expect(Buffer.byteLength(stored)).toBeLessThan(MAX_SEALED_JOB_BYTES);
  });

  it("the api opens a job with the time it was sealed; a worker reads it without the seal's fields", () => {
    const sealed = seal.seal("review.1.2.d", LARGEST, 1_700_000_000_000);
    expect(openReviewJob(seal, "review.1.2.d", sealed)).toEqual({ job: LARGEST, sealedAt: 1_700_000_000_000 });
    expect(readReviewJob(sealed)).toEqual(LARGEST);
  });

  it("refuses a sealing time moved later (a replayed job made to look new)", () => {
    const sealed = seal.seal("review.1.2.d", LARGEST, 1_700_000_000_000);
    expect(() => openReviewJob(seal, "review.1.2.d", { ...sealed, sealedAt: Date.now() })).toThrow(expect.objectContaining({ code: "JOB_INVALID" }));
  });
});
