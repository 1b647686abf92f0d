import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { AppError } from "@reviewbot/core/errors";

const MAC = /^[0-9a-f]{64}$/;

/**
 * The api's seal on what it writes to the queues (review jobs, publisher tasks). Workers share
 * Redis with the api and can write to the review queue, so the api recognises its own entries by
 * an HMAC-SHA256 over the entry's id and data, under a key the workers never hold (derived from
 * the webhook secret). A forged entry, or one whose data or id was changed, fails {@link open}.
 * The seal also covers when it was made (`sealedAt`, ms since the epoch): a sealed entry a worker
 * saved and put back later is still the api's, and only its age tells the api it is a replay.
 */
export class QueueSeal {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  /** Derives the seal key from an api secret (HKDF-SHA256): the secret itself never signs. */
  static fromSecret(secret: string): QueueSeal {
    return new QueueSeal(Buffer.from(hkdfSync("sha256", secret, "reviewbot", "queue-seal/v1", 32)));
  }

  /** `data` with its seal (`sealedAt` now, and the `mac` over both), ready to be the data of queue entry `id`. */
  seal<T extends object>(id: string, data: T, now: number = Date.now()): T & { readonly sealedAt: number; readonly mac: string } {
    const dated = { ...data, sealedAt: now };
    return { ...dated, mac: this.#mac(id, dated) };
  }

  /**
   * The data of queue entry `id` without its seal, and when it was sealed, if the api sealed
   * exactly this id and data. `sealedAt` is null for an entry sealed before seals carried the time.
   *
   * @throws AppError `JOB_INVALID` when the seal is missing or does not match.
   */
  open(id: string, data: unknown): { readonly data: Record<string, unknown>; readonly sealedAt: number | null } {
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw forged(id);
    const { mac, ...rest } = data as Record<string, unknown>;
    if (typeof mac !== "string" || !MAC.test(mac)) throw forged(id);
    const expected = Buffer.from(this.#mac(id, rest), "hex");
    if (!timingSafeEqual(expected, Buffer.from(mac, "hex"))) throw forged(id);
    const { sealedAt, ...fields } = rest;
    return { data: fields, sealedAt: typeof sealedAt === "number" ? sealedAt : null };
  }

  #mac(id: string, data: object): string {
    return createHmac("sha256", this.#key).update(id).update("\n").update(canonicalJson(data)).digest("hex");
  }
}

function forged(id: string): AppError {
  return new AppError("JOB_INVALID", `queue entry ${id.slice(0, 300)} does not carry the api's seal`, { details: { forged: true } });
}

/** JSON with object keys sorted at every level: the same data always seals the same way. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
  }
  // Scalars only here: data that crossed Redis as JSON holds no undefined, function or symbol.
  return JSON.stringify(value);
}
