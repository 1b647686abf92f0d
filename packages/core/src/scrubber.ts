/**
 * Scrubs registered secret values out of text, by value (as Renovate does): a token is registered
 * the moment it is minted, and every string bound for a log, a report or GitHub passes through
 * `scrub`. Values shorter than {@link MIN_SECRET_LENGTH} are ignored so that registering a short
 * string cannot blank out ordinary words.
 *
 * Scrubbing is one pass over the text, whatever the number of secrets: each position is looked up
 * by its first {@link MIN_SECRET_LENGTH} characters in an index of the secrets. Secrets with an
 * expiry (installation tokens) leave the index when they expire, so a long-running api that mints
 * thousands of tokens keeps only the live ones (the index used to only grow).
 */
export const MIN_SECRET_LENGTH = 8;
export const REDACTED = "[REDACTED]";

export class SecretScrubber {
  /** Secret → when it stops being scrubbed (ms since the epoch; Infinity: never). */
  readonly #secrets = new Map<string, number>();
  /** First MIN_SECRET_LENGTH characters → the secrets starting with them, longest first. */
  #index: Map<string, string[]> | null = null;
  /** The first UTF-16 unit of every secret: a position starting otherwise is skipped without a slice. */
  #firstUnits = new Set<number>();
  #nextExpiry = Number.POSITIVE_INFINITY;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Scrubs `secret` from now on, until `expiresAt` (ms since the epoch) when one is given. */
  register(secret: string, expiresAt = Number.POSITIVE_INFINITY): void {
    if (secret.length < MIN_SECRET_LENGTH) return;
    const previous = this.#secrets.get(secret);
    this.#secrets.set(secret, Math.max(previous ?? expiresAt, expiresAt));
    this.#nextExpiry = Math.min(this.#nextExpiry, expiresAt);
    this.#index = null;
  }

  forget(secret: string): void {
    if (this.#secrets.delete(secret)) this.#index = null;
  }

  /** How many secrets are scrubbed now (expired ones are dropped first). */
  get size(): number {
    this.#dropExpired();
    return this.#secrets.size;
  }

  scrub(text: string): string {
    this.#dropExpired();
    if (this.#secrets.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
    const index = this.#currentIndex();
    const firstUnits = this.#firstUnits;
    let out = "";
    let copied = 0;
    for (let i = 0; i <= text.length - MIN_SECRET_LENGTH;) {
      // Most positions start no secret: one set lookup, no substring built (a hot path: every log
      // line, report and GitHub request passes through here).
      if (!firstUnits.has(text.charCodeAt(i))) {
        i += 1;
        continue;
      }
      const match = index.get(text.slice(i, i + MIN_SECRET_LENGTH))?.find((secret) => text.startsWith(secret, i));
      if (match === undefined) {
        i += 1;
        continue;
      }
      out += text.slice(copied, i) + REDACTED;
      i += match.length;
      copied = i;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  #currentIndex(): Map<string, string[]> {
    if (this.#index === null) {
      this.#index = buildIndex(this.#secrets.keys());
      this.#firstUnits = new Set([...this.#secrets.keys()].map((secret) => secret.charCodeAt(0)));
    }
    return this.#index;
  }

  #dropExpired(): void {
    const now = this.#now();
    if (now < this.#nextExpiry) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [secret, expiresAt] of this.#secrets) {
      if (expiresAt <= now) this.#secrets.delete(secret);
      else next = Math.min(next, expiresAt);
    }
    this.#nextExpiry = next;
    this.#index = null;
  }
}

function buildIndex(secrets: Iterable<string>): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const secret of secrets) {
    const key = secret.slice(0, MIN_SECRET_LENGTH);
    const bucket = index.get(key);
    if (bucket === undefined) index.set(key, [secret]);
    else bucket.push(secret);
  }
  // Longest first, so a secret that starts like a shorter one is replaced whole.
  for (const bucket of index.values()) bucket.sort((a, b) => b.length - a.length);
  return index;
}
