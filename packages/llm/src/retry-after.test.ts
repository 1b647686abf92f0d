import { describe, expect, it } from "vitest";
import { retryAfterMs } from "./retry-after.js";

describe("retryAfterMs", () => {
  const at = Date.parse("2025-01-01T00:00:00Z");
  it.each([
    [{ "retry-after": "2" }, 2000],
    [{ "retry-after": "0" }, 0],
    [{ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }, 5000],
    [{ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }, 0],
    [{ "retry-after-ms": "1500.5", "retry-after": "9" }, 1501],
    [{ "retry-after": "soon" }, null],
    [{ "retry-after": "-1" }, null],
    [{}, null],
  ])("%j → %s", (headers, expected) => {
    expect(retryAfterMs(new Headers(headers), at)).toBe(expected);
  });
});
