import { describe, expect, it } from "vitest";
import { growthRatio } from "@reviewbot/core/testing/growth-ratio";
import { podmanAttachFailure } from "./podman-attach-failure.js";

// What Podman 4.3.1's API wrote as the last stderr frame when conmon reset its attach socket
// (test/sandbox/podman-attach-failure.test.ts provokes it on a real Podman).
const RESET = "Error: read unixpacket @->/proc/self/fd/11/attach: read: connection reset by peer\n";

const bytes = (text: string): Buffer => Buffer.from(text, "latin1");

describe("podmanAttachFailure", () => {
  it.each([
    ["the whole of stderr", RESET],
    ["after the helper's own lines", `warning: x\n${RESET}`],
    ["after a last line the helper did not end", `partial${RESET}`],
    ["after lines that say Error too", `Error: lint failed\n${RESET}`],
    ["as a write error, with the socket's full path", "Error: write unixpacket @->/run/libpod/socket/0123abcd/attach: write: broken pipe\n"],
  ])("finds Podman's attach failure %s", (_label, stderr) => {
    expect(podmanAttachFailure(bytes(stderr))).toMatch(/^Error: (read|write) unixpacket \S+attach: /);
  });

  it("returns Podman's message without its newline", () => {
    expect(podmanAttachFailure(bytes(`out\n${RESET}`))).toBe(RESET.trimEnd());
  });

  it.each([
    ["empty stderr", ""],
    ["a helper's ordinary error", "Error: cannot find module\n"],
    ["the failure followed by more of the helper's output", `${RESET}more\n`],
    ["the failure without its newline", RESET.trimEnd()],
    ["the failure followed by a second line", `${RESET}\n`],
    ["another socket's failure", "Error: read unix @->/run/podman.sock: read: connection reset by peer\n"],
    ["a TCP failure", "Error: read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer\n"],
  ])("finds nothing in %s", (_label, stderr) => {
    expect(podmanAttachFailure(bytes(stderr))).toBeNull();
  });

  it("looks at the last KiB only, whatever the size of stderr", () => {
    const huge = Buffer.concat([Buffer.alloc(8 * 1024 * 1024, "Error: "), bytes(RESET)]);
    expect(podmanAttachFailure(huge)).toBe(RESET.trimEnd());
    // The failure 1 KiB from the end is not Podman's (it always writes last).
    expect(podmanAttachFailure(Buffer.concat([bytes(RESET), Buffer.alloc(1024, "x")]))).toBeNull();
    const ratio = growthRatio(podmanAttachFailure, (size) => Buffer.concat([Buffer.alloc(size, "Error: unixpacket attach: "), bytes(RESET)]), 64 * 1024);
    expect(ratio).toBeLessThanOrEqual(6);
  });
});
