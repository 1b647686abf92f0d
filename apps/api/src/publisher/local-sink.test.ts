import { describe, expect, it } from "vitest";
import { localSinkPath } from "./local-sink.js";

const headSha = "c".repeat(40);

describe("local sink filePath", () => {
  it("nests owner, repo, PR number and head", () => {
    expect(localSinkPath("/out", { repository: "octo/hello.js", pullNumber: 7, headSha })).toBe(`/out/octo/hello.js/7/${headSha}.json`);
  });

  it.each(["octo/..", "octo/.", "../x", "octo/hello/extra"])("refuses %s", (repository) => {
    expect(() => localSinkPath("/out", { repository, pullNumber: 1, headSha })).toThrow(expect.objectContaining({ code: "JOB_INVALID" }));
  });
});
