import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for secrets the api keeps in Redis, which workers share: each value is bound to the
 * name it is stored under (associated data), so it neither reads without the key nor moves to
 * another name.
 */
export class SealedBox {
  readonly #key: Buffer;

  /** The box's key, derived (HKDF-SHA256) from an api secret and a purpose; the secret never encrypts. */
  constructor(secret: string, purpose: string) {
    this.#key = Buffer.from(hkdfSync("sha256", secret, "reviewbot", purpose, 32));
  }

  seal(name: string, value: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv).setAAD(Buffer.from(name));
    const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
  }

  /** The value sealed under `name`, or undefined when it was tampered with or sealed by another key or name. */
  open(name: string, sealed: string): string | undefined {
    try {
      const raw = Buffer.from(sealed, "base64");
      const decipher = createDecipheriv("aes-256-gcm", this.#key, raw.subarray(0, 12)).setAAD(Buffer.from(name));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}
