import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestMatches, parseSignatureHeader } from "./verify-signature.js";

const secret = "a-webhook-secret-of-length";
const body = Buffer.from('{"action":"opened","number":1}');
const signPayload = (key: string, raw: Buffer) => `sha256=${createHmac("sha256", key).update(raw).digest("hex")}`;
const good = signPayload(secret, body);

/** What the webhook handler does: the header parsed before the body is read, then the body's HMAC compared with it. */
function verifySignature(key: string, raw: Buffer, header: string | undefined): boolean {
  const given = parseSignatureHeader(header);
  return given !== null && digestMatches(createHmac("sha256", key).update(raw).digest(), given);
}

describe("parseSignatureHeader and digestMatches", () => {
  it.each([
    ["the right signature", good, body, true],
    ["no header", undefined, body, false],
    ["an empty header", "", body, false],
    ["the sha1 scheme", `sha1=${good.slice(7, 47)}`, body, false],
    ["upper-case hex", good.toUpperCase().replace("SHA256=", "sha256="), body, false],
    ["a truncated digest", good.slice(0, -2), body, false],
    ["a digest with trailing junk", `${good}00`, body, false],
    ["one flipped digit", good.slice(0, -1) + (good.endsWith("0") ? "1" : "0"), body, false],
    ["another secret's signature", signPayload("another-secret-value", body), body, false],
    ["the same JSON re-serialised with other whitespace", good, Buffer.from('{"action": "opened", "number": 1}'), false],
    ["a body with a trailing newline", good, Buffer.concat([body, Buffer.from("\n")]), false],
  ] as const)("%s", (_name, header, raw, expected) => {
    expect(verifySignature(secret, raw, header)).toBe(expected);
  });
});
