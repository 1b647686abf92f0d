import { describe, expect, it } from "vitest";
import { signPayload, verifySignature } from "./verify-signature.js";

const secret = "a-webhook-secret-of-length";
const body = Buffer.from('{"action":"opened","number":1}');
const good = signPayload(secret, body);

describe("verifySignature", () => {
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
