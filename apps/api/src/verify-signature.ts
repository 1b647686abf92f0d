import { createHmac, timingSafeEqual } from "node:crypto";

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/**
 * True when `header` (X-Hub-Signature-256) is `sha256=` + the hex HMAC-SHA256 of the raw body
 * under the webhook secret. Compared in constant time; a missing or malformed header is false.
 * Runs before anything of the body is parsed: an unsigned body is never looked at.
 * See https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
 */
export function verifySignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  const match = header === undefined ? null : SIGNATURE.exec(header);
  if (match?.[1] === undefined) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  const given = Buffer.from(match[1], "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header value GitHub would send for `rawBody` (used by the CLI's replay and by tests). */
export function signPayload(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody).digest("hex")}`;
}
