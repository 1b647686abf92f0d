/**
 * Scrubs registered secret values out of text, by value (as Renovate does): a token is registered
 * the moment it is minted, and every string bound for a log, a report or GitHub passes through
 * `scrub`. Values shorter than {@link MIN_SECRET_LENGTH} are ignored so that registering a short
 * string cannot blank out ordinary words.
 */
export const MIN_SECRET_LENGTH = 8;
export const REDACTED = "[REDACTED]";

export class SecretScrubber {
  readonly #secrets = new Set<string>();

  register(secret: string): void {
    if (secret.length >= MIN_SECRET_LENGTH) this.#secrets.add(secret);
  }

  forget(secret: string): void {
    this.#secrets.delete(secret);
  }

  scrub(text: string): string {
    let result = text;
    // Longest first, so a secret that contains another is replaced whole.
    const ordered = [...this.#secrets].sort((a, b) => b.length - a.length);
    for (const secret of ordered) result = result.split(secret).join(REDACTED);
    return result;
  }
}
