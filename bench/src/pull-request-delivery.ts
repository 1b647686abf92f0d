/** The raw body of a `pull_request` `synchronize` delivery for `repository`, as GitHub sends it (the fields the api reads). */
export function pullRequestDelivery(repository: string, number: number, heads: { baseSha: string; headSha: string }): string {
  return JSON.stringify({
    action: "synchronize",
    installation: { id: 1 + (number % 7) },
    repository: { id: 4242, full_name: repository, default_branch: "main" },
    pull_request: {
      number,
      state: "open",
      draft: false,
      updated_at: new Date().toISOString(),
      user: { login: "bench", type: "User" },
      head: { sha: heads.headSha, ref: "fork" },
      base: { sha: heads.baseSha, ref: "main" },
    },
  });
}
