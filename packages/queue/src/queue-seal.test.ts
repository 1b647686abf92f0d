import { describe, expect, it } from "vitest";
import { QueueSeal } from "./queue-seal.js";

const seal = QueueSeal.fromSecret("webhook-secret-0123456789");
const data = { repository: "octo/hello", headSha: "a".repeat(40), nested: { list: [1, "two", null] } };

describe("QueueSeal", () => {
  it("opens what it sealed under the same id, returning the data without its seal", () => {
    expect(seal.open("review.1.2.d", seal.seal("review.1.2.d", data, 1234))).toEqual({ data, sealedAt: 1234 });
  });

  it("does not depend on the order of keys (Redis round trips keep the data, not the order)", () => {
    const sealed = seal.seal("id", data);
    const reordered = { nested: { list: [1, "two", null] }, mac: sealed.mac, sealedAt: sealed.sealedAt, headSha: data.headSha, repository: data.repository };
    expect(seal.open("id", reordered).data).toEqual(data);
  });

  it.each([
    ["no seal", () => data],
    ["a seal that is not hex", () => ({ ...seal.seal("id", data), mac: "z".repeat(64) })],
    ["a changed field", () => ({ ...seal.seal("id", data), repository: "octo/private" })],
    ["an added field", () => ({ ...seal.seal("id", data), token: "ghs_x" })],
    ["a changed sealing time", () => ({ ...seal.seal("id", data), sealedAt: Date.now() + 60_000 })],
    [
      "a removed field",
      () => {
        const sealed: Record<string, unknown> = seal.seal("id", data);
        Reflect.deleteProperty(sealed, "headSha");
        return sealed;
      },
    ],
    ["another entry's seal (moved to this id)", () => seal.seal("other-id", data)],
    ["a seal under another secret", () => QueueSeal.fromSecret("another-secret-0123456789").seal("id", data)],
    ["an array", () => [data]],
    ["null", () => null],
  ])("refuses %s with a final JOB_INVALID", (_name, forge) => {
    expect(() => seal.open("id", forge())).toThrow(expect.objectContaining({ code: "JOB_INVALID", retryable: false }));
  });
});
