import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { isOurAuthor, type ListedAuthor } from "./app-identity.js";
import type { ReviewTarget } from "./post-review-once.js";

/** A PR to publish on: a summary follows the PR, not one of its heads. */
export type PullTarget = Omit<ReviewTarget, "headSha">;
import { summaryKey } from "./summary-state.js";

/** The hidden marker of our summary comment: it tells ours from our other comments, never ours from anyone else's. */
export const SUMMARY_MARKER = "<!-- reviewbot:summary -->";

const COMMENT_TTL_SECONDS = 90 * 24 * 3600;
const MAX_PAGES = 30;

interface ListedComment {
  readonly id: number;
  readonly body?: string | null;
  readonly user: ListedAuthor | null;
}

/**
 * Creates the PR's one summary comment, or edits it in place: its id is remembered in Redis (an
 * api-only key); without it (first review, lost Redis) the PR's issue comments are looked through
 * for one by our App's bot user carrying the marker (anyone can copy the marker: only the user id
 * makes it ours), and only then is one created. The caller holds the PR's summary lock, so two api
 * processes or a retried task never create a second. An edit of a comment that is gone (someone
 * deleted it) creates a new one. Returns the comment's id.
 */
export async function upsertSummaryComment(
  target: PullTarget,
  deps: { readonly logger: Logger; readonly scrubber: SecretScrubber },
  markdown: string,
): Promise<number> {
  const { octokit, owner, repo, redis } = target;
  const key = summaryKey(target.keys, target.repositoryId, target.pullNumber, "comment");
  const body = `${SUMMARY_MARKER}\n${deps.scrubber.scrub(markdown)}`;
  const edit = async (id: number): Promise<boolean> => {
    try {
      await octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner, repo, comment_id: id, body });
      return true;
    } catch (error) {
      if ((error as { status?: unknown }).status !== 404) throw error;
      deps.logger.info({ commentId: id }, "summary comment is gone: posting a new one");
      return false;
    }
  };
  const remembered = Number(await redis.get(key));
  if (remembered > 0 && (await edit(remembered))) return remembered;
  const found = await findOurSummary(target);
  const id = found !== null && (await edit(found)) ? found : await create(target, body);
  await redis.set(key, String(id), "EX", COMMENT_TTL_SECONDS);
  return id;
}

async function findOurSummary(target: PullTarget): Promise<number | null> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { data } = (await target.octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: target.owner,
      repo: target.repo,
      issue_number: target.pullNumber,
      per_page: 100,
      page,
    })) as { data: ListedComment[] };
    const ours = data.find((comment) => isOurAuthor(target.identity, comment.user) && (comment.body ?? "").startsWith(SUMMARY_MARKER));
    if (ours !== undefined) return ours.id;
    if (data.length < 100) break;
  }
  return null;
}

async function create(target: PullTarget, body: string): Promise<number> {
  const { data } = await target.octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.pullNumber,
    body,
  });
  return (data as { id: number }).id;
}
