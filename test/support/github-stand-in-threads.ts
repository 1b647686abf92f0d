import type { StandInState } from "./github-stand-in.js";

/** An account as GitHub lists it on a review or comment: its login, its user id (never reused) and `User` or `Bot`. */
export interface StandInUser {
  readonly login: string;
  readonly id: number;
  readonly type: string;
}

/** The stand-in App's slug: its bot user is `<slug>[bot]`. */
export const APP_SLUG = "reviewbot";

/** Who the stand-in's installation tokens post as: the App's bot user, whose id is not the App's id (as on GitHub). */
export const APP_BOT: StandInUser = { login: `${APP_SLUG}[bot]`, id: 149_000_001, type: "Bot" };

/** Reads a file as it is at a commit; null when the commit has no such file. */
export type FileAt = (sha: string, path: string) => string | null;

export interface StandInReviewComment {
  readonly id: number;
  /** `owner/name#number` of the PR. */
  readonly pull: string;
  readonly threadId: string;
  /** The review that posted it; null for a reply or a comment a test placed. */
  readonly reviewId: number | null;
  readonly commitId: string;
  readonly path: string;
  readonly line: number;
  readonly side: string;
  readonly body: string;
  readonly user: StandInUser;
  readonly inReplyToId: number | null;
}

export interface StandInThread {
  /** A GraphQL node id, `PRRT_<n>`. */
  readonly id: string;
  readonly pull: string;
  /** Its comments' ids, the one that opened it first. */
  readonly commentIds: number[];
  isResolved: boolean;
  /** Who resolved it (null while open). */
  resolvedBy: StandInUser | null;
}

export type NewComment = Pick<StandInReviewComment, "reviewId" | "commitId" | "path" | "line" | "side" | "body" | "user">;

/** Opens a thread on `pull` with its first comment, as a review comment does on GitHub. */
export function openThread(state: StandInState, pull: string, comment: NewComment): StandInReviewComment {
  const thread: StandInThread = { id: `PRRT_${state.nextId++}`, pull, commentIds: [], isResolved: false, resolvedBy: null };
  const opened: StandInReviewComment = { ...comment, id: state.nextId++, pull, threadId: thread.id, inReplyToId: null };
  thread.commentIds.push(opened.id);
  state.threads.set(thread.id, thread);
  state.reviewComments.set(opened.id, opened);
  return opened;
}

/**
 * Adds `user`'s reply to the thread holding `commentId`; null when that comment is not on `pull`.
 * Like GitHub, a reply sits on its thread's line and answers the thread's first comment.
 */
export function addReply(state: StandInState, pull: string, commentId: number, user: StandInUser, body: string): StandInReviewComment | null {
  const thread = threadOf(state, pull, commentId);
  const first = thread === undefined ? undefined : state.reviewComments.get(thread.commentIds[0] ?? -1);
  if (thread === undefined || first === undefined) return null;
  const reply: StandInReviewComment = { ...first, id: state.nextId++, reviewId: null, body, user, inReplyToId: first.id };
  thread.commentIds.push(reply.id);
  state.reviewComments.set(reply.id, reply);
  return reply;
}

/** The thread holding `commentId` on `pull`, if any. */
export function threadOf(state: StandInState, pull: string, commentId: number): StandInThread | undefined {
  const comment = state.reviewComments.get(commentId);
  return comment === undefined || comment.pull !== pull ? undefined : state.threads.get(comment.threadId);
}

/**
 * GitHub marks a thread outdated once a push changes the diff where its comment sits. The stand-in
 * approximates that, deterministically: a thread is outdated when the PR's head is no longer the
 * comment's commit and the commented line's text (whitespace-trimmed) occurs nowhere in the file at
 * the head (or the file is gone). A line that only moved stays current; an edited or deleted one is
 * outdated. Without `fileAt`, or when the commented file cannot be read, nothing is outdated.
 */
export function isOutdated(state: StandInState, thread: StandInThread): boolean {
  const first = state.reviewComments.get(thread.commentIds[0] ?? -1);
  const head = state.pulls.get(thread.pull)?.headSha;
  if (first === undefined || head === undefined || head === first.commitId || state.fileAt === undefined) return false;
  const original = state.fileAt(first.commitId, first.path)?.split("\n")[first.line - 1]?.trim();
  if (original === undefined) return false;
  const current = state.fileAt(head, first.path);
  return current === null || !current.split("\n").some((line) => line.trim() === original);
}
