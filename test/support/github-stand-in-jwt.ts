import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from "node:crypto";

/** A throwaway GitHub App key pair: the private key in GitHub's PKCS#1 PEM format. */
export interface TestAppKey {
  readonly privateKey: string;
  readonly publicKey: KeyObject;
}

/** Generates a fresh RSA key for one test run; nothing is read from or written to disk. */
export function generateTestAppKey(): TestAppKey {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/**
 * Verifies an App JWT as GitHub does: RS256 signed by the App's key, `iss` the App id, `exp` in
 * the future and at most ten minutes ahead. Returns why it is refused, or null when it is good.
 */
export function checkAppJwt(jwt: string, publicKey: KeyObject, appId: number): string | null {
  const parts = jwt.split(".");
  if (parts.length !== 3) return "not a JWT";
  const [header = "", payload = "", signature = ""] = parts;
  let headerJson: { alg?: unknown };
  let claims: { iss?: unknown; exp?: unknown; iat?: unknown };
  try {
    headerJson = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown };
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof claims;
  } catch {
    return "malformed JWT";
  }
  if (headerJson.alg !== "RS256") return "alg must be RS256";
  const signed = verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, "base64url"));
  if (!signed) return "bad signature";
  if (String(claims.iss) !== String(appId)) return "wrong iss";
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== "number" || claims.exp <= now || claims.exp > now + 660) return "bad exp";
  return null;
}
