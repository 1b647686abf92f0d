import { z } from "zod";
import { dismissalReason } from "./dismissal-reply.js";

const login = z.string().min(1).max(100);

/** The comments of a thread the dismissal query reads, with each one's 👎 reactors. */
export const DISMISSAL_COMMENTS = 20;
/** The 👎 reactions read per comment. */
export const DISMISSAL_REACTIONS = 20;

/**
 * A PR review thread as the dismissal query reads it: whether it is resolved and by whom, and its
 * first comments, each with its author, the author's association with the repository, its body
 * and its 👎 reactors. `resolvedBy` and a reaction's `user` are GitHub `User`s: null for an App
 * (a `Bot` is not a `User`) or a deleted account.
 */
export const DismissalThread = z.object({
  isResolved: z.boolean(),
  resolvedBy: z.object({ login }).nullable(),
  comments: z.object({
    nodes: z
      .array(
        z.object({
          databaseId: z.int().nullable(),
          authorAssociation: z.string().max(50),
          author: z.object({ __typename: z.string().max(50), login }).nullable(),
          body: z.string().max(262_144),
          reactions: z.object({ nodes: z.array(z.object({ user: z.object({ login }).nullable() })).max(DISMISSAL_REACTIONS) }),
        }),
      )
      .max(DISMISSAL_COMMENTS),
  }),
});
export type DismissalThread = z.infer<typeof DismissalThread>;

/**
 * What one of our threads says about its finding: `dismissed` when a reply in it is a dismissal
 * by a person whose association is trusted (GitHub states it on the comment); otherwise the
 * people whose trust must be asked of GitHub (the collaborator permission endpoint) because they
 * resolved the thread or reacted 👎 to our comment (the first). Apps never count: a `Bot` author,
 * a login ending in `[bot]`, a reactor or resolver GitHub gives no `User` for. Our own App is one
 * of them, so the threads we resolve as outdated are never dismissals. Null: not one of ours.
 */
export function dismissalSignals(
  thread: DismissalThread,
  isOurs: (commentDatabaseId: number) => boolean,
  trustedAssociations: readonly string[],
): { readonly commentId: number; readonly dismissed: boolean; readonly askTrustOf: readonly string[] } | null {
  const [first, ...replies] = thread.comments.nodes;
  if (first?.databaseId === null || first === undefined || !isOurs(first.databaseId)) return null;
  const byReply = replies.some(
    (reply) =>
      reply.author !== null &&
      isPerson(reply.author.login) &&
      reply.author.__typename === "User" &&
      trustedAssociations.includes(reply.authorAssociation) &&
      dismissalReason(reply.body) !== null,
  );
  if (byReply) return { commentId: first.databaseId, dismissed: true, askTrustOf: [] };
  const resolver = thread.isResolved && thread.resolvedBy !== null ? [thread.resolvedBy.login] : [];
  const reactors = first.reactions.nodes.flatMap((reaction) => (reaction.user === null ? [] : [reaction.user.login]));
  return { commentId: first.databaseId, dismissed: false, askTrustOf: [...new Set([...resolver, ...reactors].filter(isPerson))] };
}

function isPerson(name: string): boolean {
  return !name.toLowerCase().endsWith("[bot]");
}
