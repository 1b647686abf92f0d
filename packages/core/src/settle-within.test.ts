import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { settleWithin } from "./settle-within.js";

describe("settleWithin", () => {
  it("settles with the work when it is in time", async () => {
    expect(
      await settleWithin(
        sleep(5).then(() => "done"),
        1000,
        "late",
      ),
    ).toBe("done");
  });

  it("settles with the late value when the work is not", async () => {
    const started = Date.now();
    expect(await settleWithin(new Promise<string>(() => undefined), 50, "late")).toBe("late");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("rejects as the work does", async () => {
    await expect(settleWithin(Promise.reject(new Error("refused")), 1000, "late")).rejects.toThrow("refused");
  });
});
