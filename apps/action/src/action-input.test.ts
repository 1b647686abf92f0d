import { describe, expect, it } from "vitest";
import { readActionInput } from "./action-input.js";

describe("readActionInput", () => {
  it("reads INPUT_<NAME> upper-cased with hyphens kept, trimmed", () => {
    expect(readActionInput({ "INPUT_LLM-API-KEY": "  k  " }, "llm-api-key")).toBe("k");
    expect(readActionInput({ INPUT_LLM_API_KEY: "k" }, "llm-api-key")).toBeUndefined();
  });

  it("turns spaces into underscores, as the runner does", () => {
    expect(readActionInput({ INPUT_FAIL_LEVEL: "error" }, "fail level")).toBe("error");
  });

  it("reads an empty or missing input as not given", () => {
    expect(readActionInput({ "INPUT_FAIL-LEVEL": "  " }, "fail-level")).toBeUndefined();
    expect(readActionInput({}, "fail-level")).toBeUndefined();
  });
});
