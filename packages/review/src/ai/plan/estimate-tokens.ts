/**
 * A provider-neutral token estimate: about four characters per token for code and English. Used
 * to plan (chunks, the last turn before a budget runs out), never to bill: the provider's usage
 * counts are what the broker records.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
