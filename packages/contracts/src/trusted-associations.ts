/**
 * The author associations GitHub gives people with a push-level role on a repository: the only
 * ones whose comments may command a review, and whose replies and dismissals are trusted
 * (docs/architecture.md, layer 6). The fleet's operator may narrow them
 * (REVIEWBOT_COMMAND_ASSOCIATIONS); nothing widens them.
 */
export const TRUSTED_ASSOCIATIONS = ["OWNER", "MEMBER", "COLLABORATOR"] as const;
export type TrustedAssociation = (typeof TRUSTED_ASSOCIATIONS)[number];
