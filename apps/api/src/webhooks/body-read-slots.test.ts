import { describe, expect, it } from "vitest";
import { createBodyReadSlots, type ReleaseSlot, type SlotRefusal } from "./body-read-slots.js";

const taken = (result: ReleaseSlot | SlotRefusal): ReleaseSlot => {
  if (typeof result !== "function") throw new Error(`expected a slot, got ${result}`);
  return result;
};

describe("createBodyReadSlots", () => {
  it.each([1, 2, 8])("hands out %i slots at once, one to each address", async (limit) => {
    const slots = createBodyReadSlots({ limit, perSource: 1, waitMs: 1000 });
    const held = await Promise.all(Array.from({ length: limit }, (_, index) => slots.acquire(`10.0.0.${index}`)));
    expect(held.every((release) => typeof release === "function")).toBe(true);
    expect(slots.inUse()).toBe(limit);
  });

  it("refuses an address past its share at once, and gives it another place once one is released", async () => {
    const slots = createBodyReadSlots({ limit: 8, perSource: 2, waitMs: 1000 });
    const first = taken(await slots.acquire("10.0.0.1"));
    taken(await slots.acquire("10.0.0.1"));
    expect(await slots.acquire("10.0.0.1")).toBe("source");
    // Negative control: another address still gets a slot, and the first gets one back when it releases.
    taken(await slots.acquire("10.0.0.2"));
    first();
    first();
    taken(await slots.acquire("10.0.0.1"));
    expect(slots.inUse()).toBe(3);
  });

  it("gives a freed slot to the first request in line, and the next to the next", async () => {
    const slots = createBodyReadSlots({ limit: 2, perSource: 4, waitMs: 10_000 });
    const holders = [taken(await slots.acquire("a")), taken(await slots.acquire("a"))];
    const order: string[] = [];
    const second = slots.acquire("b").then((release) => (order.push("b"), taken(release)));
    const third = slots.acquire("c").then((release) => (order.push("c"), taken(release)));
    holders[0]?.();
    (await second)();
    holders[1]?.();
    (await third)();
    expect(order).toEqual(["b", "c"]);
    expect(slots.inUse()).toBe(0);
  });

  it("refuses a request that waited its time without a slot, and one that finds the line full", async () => {
    const slots = createBodyReadSlots({ limit: 1, perSource: 1, waitMs: 50 });
    taken(await slots.acquire("a"));
    const waiting = Array.from({ length: 256 }, (_, index) => slots.acquire(`w${index}`));
    expect(await slots.acquire("c")).toBe("busy");
    expect(new Set(await Promise.all(waiting))).toEqual(new Set(["busy"]));
    // The one that gave up left the line and its address's count: it may wait again.
    const again = slots.acquire("b");
    expect(await again).toBe("busy");
    expect(slots.inUse()).toBe(1);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a limit of %s", (limit) => {
    expect(() => createBodyReadSlots({ limit, perSource: 1, waitMs: 1 })).toThrow(RangeError);
    expect(() => createBodyReadSlots({ limit: 1, perSource: limit, waitMs: 1 })).toThrow(RangeError);
  });
});
