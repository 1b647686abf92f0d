import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import { SecretScrubber } from "./scrubber.js";

function capture(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return { lines, write: (line: string) => lines.push(line) };
}

describe("createLogger", () => {
  it("redacts secret-named fields", () => {
    const sink = capture();
    const logger = createLogger({ level: "info", scrubber: new SecretScrubber(), destination: sink });
    logger.info({ token: "t0ken-value-1234", auth: { password: "hunter2hunter2" } }, "minted");
    const line = sink.lines.join("");
    expect(line).not.toContain("t0ken-value-1234");
    expect(line).not.toContain("hunter2hunter2");
    expect(JSON.parse(line)).toMatchObject({ msg: "minted", token: "[REDACTED]" });
  });

  it("scrubs registered secret values wherever they appear", () => {
    const sink = capture();
    const scrubber = new SecretScrubber();
    const logger = createLogger({ level: "info", scrubber, destination: sink });
    scrubber.register("ghs_live_installation_token");
    logger.warn({ stderr: "fatal: could not read ghs_live_installation_token" }, "git failed");
    expect(sink.lines.join("")).not.toContain("ghs_live_installation_token");
    expect(sink.lines.join("")).toContain("[REDACTED]");
  });

  it("names the process in every line, child loggers' too", () => {
    const sink = capture();
    const logger = createLogger({ name: "reviewbot-worker", level: "info", scrubber: new SecretScrubber(), destination: sink });
    logger.child({ jobId: "7" }).info("claimed");
    expect(JSON.parse(sink.lines.join(""))).toMatchObject({ name: "reviewbot-worker", jobId: "7", msg: "claimed" });
  });
});
