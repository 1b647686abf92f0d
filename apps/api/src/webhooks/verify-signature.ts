import { createHmac, timingSafeEqual } from "node:crypto";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/**
 * The 32-byte HMAC a well-formed X-Hub-Signature-256 names (`sha256=` + 64 lower-case hex digits),
 * or null when the header is missing or malformed. Checked before a byte of the body is read: a
 * request that cannot be signed is refused without reading what it sends (issue 11).
 */
export function parseSignatureHeader(header: string | undefined): Buffer | null {
  const match = header === undefined ? null : SIGNATURE.exec(header);
  return match?.[1] === undefined ? null : Buffer.from(match[1], "hex");
}

/** Compares the HMAC computed over the raw body with the header's, in constant time. */
export function digestMatches(expected: Buffer, given: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * True when `header` (X-Hub-Signature-256) is `sha256=` + the hex HMAC-SHA256 of the raw body
 * under the webhook secret. Compared in constant time; a missing or malformed header is false.
 * Runs before anything of the body is parsed: an unsigned body is never looked at.
 * See https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
 */
export function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  const given = parseSignatureHeader(header);
  if (given === null) return false;
  return digestMatches(createHmac("sha256", secret).update(rawBody).digest(), given);
}

/** The header value GitHub would send for `rawBody` (the tests sign their deliveries with it). */
export function signPayload(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}
