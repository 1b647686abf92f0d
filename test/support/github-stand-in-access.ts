import type { MintedToken, StandInState } from "./github-stand-in.js";

/** Whether a token carries `permission` at `level` or above; a token minted without a permission list has all of them. */
export function tokenGrants(token: MintedToken, [name, level]: readonly [string, "read" | "write"]): boolean {
  if (token.permissions === undefined) return true;
  const granted = token.permissions[name];
  return granted !== undefined && (level === "read" || granted === "write");
}

/** Whether a token may see `owner/name`; a token minted without repository ids reaches every repository. */
export function tokenReaches(state: StandInState, token: MintedToken, repository: string): boolean {
  if (token.repositoryIds === undefined) return true;
  const id = state.repositories.get(repository);
  return id !== undefined && token.repositoryIds.includes(id);
}
