import { timingSafeEqual } from "node:crypto";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/**
 * The 32-byte HMAC a well-formed X-Hub-Signature-256 names (`sha256=` + 64 lower-case hex digits),
 * or null when the header is missing or malformed. Checked before a byte of the body is read: a
 * request that cannot be signed is refused without reading what it sends.
 */
export function parseSignatureHeader(header: string | undefined): Buffer | null {
  const match = header === undefined ? null : SIGNATURE.exec(header);
  return match?.[1] === undefined ? null : Buffer.from(match[1], "hex");
}

/**
 * Compares the HMAC computed over the raw body with the header's, in constant time.
 * See https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
 */
export function digestMatches(expected: Buffer, given: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
