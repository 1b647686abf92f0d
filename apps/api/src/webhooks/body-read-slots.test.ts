import { describe, expect, it } from "vitest";
import { createBodyReadSlots } from "./body-read-slots.js";

describe("createBodyReadSlots", () => {
  it.each([1, 2, 8])("hands out %i slots, then refuses until one is released", (limit) => {
    const slots = createBodyReadSlots(limit);
    const held = Array.from({ length: limit }, () => slots.tryAcquire());
    expect(held.every((release) => release !== null)).toBe(true);
    expect(slots.tryAcquire()).toBeNull();
    expect(slots.inUse()).toBe(limit);
    held[0]?.();
    expect(slots.inUse()).toBe(limit - 1);
    expect(slots.tryAcquire()).not.toBeNull();
    expect(slots.tryAcquire()).toBeNull();
  });

  it("counts a slot released twice once", () => {
    const slots = createBodyReadSlots(2);
    const release = slots.tryAcquire();
    slots.tryAcquire();
    release?.();
    release?.();
    expect(slots.inUse()).toBe(1);
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a limit of %s", (limit) => {
    expect(() => createBodyReadSlots(limit)).toThrow(RangeError);
  });
});
