import type { Octokit } from "@octokit/core";
import type { Logger } from "@reviewbot/core/logger";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { z } from "zod";
import { isTrustedCollaborator } from "./collaborator-trust.js";
import { dismissFindings, dismissedFingerprints } from "./dismissed-findings.js";
import { DISMISSAL_COMMENTS, DISMISSAL_REACTIONS, DismissalThread, dismissalSignals } from "./dismissal-signals.js";
import { askGraphql, checkedAnswer } from "./graphql-call.js";
import type { ReviewMemory } from "./review-memory.js";

export interface DismissalsOfPull {
  readonly octokit: Octokit;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly owner: string;
  readonly repo: string;
  readonly repositoryId: number;
  readonly pullNumber: number;
}

const PAGE_SIZE = 50;
// 1,000 threads, as many as the outdated-thread sweep reads.
const MAX_PAGES = 20;
// Permission look-ups per publication; past it the rest are asked at the next one.
const MAX_TRUST_CHECKS = 50;

const DISMISSALS_QUERY = `query ($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: ${PAGE_SIZE}, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          isResolved
          resolvedBy { login }
          comments(first: ${DISMISSAL_COMMENTS}) {
            nodes {
              databaseId
              authorAssociation
              author { __typename login }
              body
              reactions(content: THUMBS_DOWN, first: ${DISMISSAL_REACTIONS}) { nodes { user { login } } }
            }
          }
        }
      }
    }
  }
}`;

const DismissalsPage = z.object({
  repository: z.object({
    pullRequest: z.object({
      reviewThreads: z.object({
        pageInfo: z
          .object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() })
          .refine((info) => !info.hasNextPage || info.endCursor !== null, "hasNextPage without an endCursor"),
        nodes: z.array(DismissalThread).max(PAGE_SIZE),
      }),
    }),
  }),
});

/**
 * The PR's dismissed fingerprints, after recording those trusted people dismissed since the last
 * publication (issue 23, part 3). Reactions have no webhook, so the PR's threads are read here, at
 * each publication: of each thread that opens with a finding we posted (by the comment ids in the
 * review memory, never by text), a dismissal reply from a trusted association, a resolution or a
 * 👎 by someone GitHub says may push. When GitHub cannot be read, the stored dismissals stand and
 * the new ones wait for the next publication: a finding is then shown once more, never hidden.
 */
export async function collectDismissals(
  pull: DismissalsOfPull,
  memory: ReviewMemory,
  trustedAssociations: readonly string[],
  logger: Logger,
): Promise<ReadonlySet<string>> {
  const stored = await dismissedFingerprints(pull.redis, pull.keys, pull.repositoryId, pull.pullNumber);
  const fingerprintOf = new Map(Object.entries(memory.posted).map(([fingerprint, id]) => [id, fingerprint]));
  const open = [...fingerprintOf].filter(([, fingerprint]) => !stored.has(fingerprint));
  if (open.length === 0) return stored;
  const undecided = new Map(open);
  try {
    const fresh = await readDismissals(pull, (id) => undecided.has(id), trustedAssociations, logger);
    const fingerprints = fresh.flatMap((id) => fingerprintOf.get(id) ?? []);
    await dismissFindings(pull.redis, pull.keys, pull.repositoryId, pull.pullNumber, fingerprints);
    if (fingerprints.length > 0) logger.info({ dismissed: fingerprints.length }, "findings dismissed");
    return new Set([...stored, ...fingerprints]);
  } catch (error) {
    logger.warn({ err: error }, "dismissals could not be read; the stored ones stand");
    return stored;
  }
}

/** The ids of our comments whose threads a trusted person dismissed, among those `isOpen` says are undecided. */
async function readDismissals(
  pull: DismissalsOfPull,
  isOpen: (commentId: number) => boolean,
  trustedAssociations: readonly string[],
  logger: Logger,
): Promise<number[]> {
  const details = { repository: `${pull.owner}/${pull.repo}`, pullNumber: pull.pullNumber };
  const dismissed: number[] = [];
  const trust = new Map<string, boolean>();
  let cursor: string | null = null;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const variables = { owner: pull.owner, name: pull.repo, number: pull.pullNumber, cursor };
    const answer = await askGraphql(pull.octokit, DISMISSALS_QUERY, variables, "dismissal query", details);
    const { pageInfo, nodes } = checkedAnswer(DismissalsPage, answer, "dismissal query", details).repository.pullRequest.reviewThreads;
    for (const thread of nodes) {
      const signals = dismissalSignals(thread, isOpen, trustedAssociations);
      if (signals === null) continue;
      if (signals.dismissed || (await anyTrusted(pull, signals.askTrustOf, trust))) dismissed.push(signals.commentId);
    }
    if (!pageInfo.hasNextPage) break;
    if (page === MAX_PAGES) logger.warn({ ...details, pages: MAX_PAGES }, "review threads past the page limit left unread for dismissals");
    cursor = pageInfo.endCursor;
  }
  return dismissed;
}

async function anyTrusted(pull: DismissalsOfPull, logins: readonly string[], trust: Map<string, boolean>): Promise<boolean> {
  for (const login of logins) {
    const known = trust.get(login);
    if (known === undefined && trust.size >= MAX_TRUST_CHECKS) continue;
    const trusted = known ?? (await isTrustedCollaborator(pull.octokit, pull, login));
    trust.set(login, trusted);
    if (trusted) return true;
  }
  return false;
}
