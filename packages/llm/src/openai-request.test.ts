import { describe, expect, it } from "vitest";
import type { ChatRequest } from "@reviewbot/contracts/chat";
import { toOpenAiBody } from "./openai-request.js";

const tool = { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };

const request: ChatRequest = {
  model: "qwen2.5-coder",
  system: "You review code.",
  messages: [
    { role: "user", content: "Review this." },
    { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' }] },
    { role: "tool", toolCallId: "call_1", name: "read_file", content: "const a = 1;" },
    { role: "assistant", content: "Looks fine.", toolCalls: [] },
    { role: "user", content: "Anything else?" },
  ],
  tools: [tool],
  toolChoice: "required",
  maxTokens: 1000,
};

describe("toOpenAiBody", () => {
  it("translates a conversation with tools", () => {
    expect(toOpenAiBody(request)).toEqual({
      model: "qwen2.5-coder",
      messages: [
        { role: "system", content: "You review code." },
        { role: "user", content: "Review this." },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "const a = 1;" },
        { role: "assistant", content: "Looks fine." },
        { role: "user", content: "Anything else?" },
      ],
      tools: [{ type: "function", function: tool }],
      tool_choice: "required",
      max_tokens: 1000,
      stream: false,
    });
  });

  it("leaves out tools and tool_choice without tools, and an empty system prompt", () => {
    const body = toOpenAiBody({ ...request, system: "", tools: [], toolChoice: "none", messages: [{ role: "user", content: "hi" }] });
    expect(body).toEqual({ model: "qwen2.5-coder", messages: [{ role: "user", content: "hi" }], max_tokens: 1000, stream: false });
    expect(Object.keys(body)).not.toContain("tools");
  });

  it.each(["auto", "none"] as const)("passes tool_choice %s", (choice) => {
    expect(toOpenAiBody({ ...request, toolChoice: choice }).tool_choice).toBe(choice);
  });
});
