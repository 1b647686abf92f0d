import { describe, expect, it } from "vitest";
import type { ChatRequest } from "@reviewbot/contracts/chat";
import { toAnthropicBody } from "./anthropic-request.js";

const tool = { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } } } };

const request: ChatRequest = {
  model: "claude-sonnet-4-5",
  system: "You review code.",
  messages: [
    { role: "user", content: "Review this." },
    {
      role: "assistant",
      content: "Reading two files.",
      toolCalls: [
        { id: "toolu_1", name: "read_file", arguments: '{"path":"a.ts"}' },
        { id: "toolu_2", name: "read_file", arguments: "not json" },
      ],
    },
    { role: "tool", toolCallId: "toolu_1", name: "read_file", content: "const a = 1;" },
    { role: "tool", toolCallId: "toolu_2", name: "read_file", content: "" },
    { role: "user", content: "Also check b." },
    { role: "assistant", content: "", toolCalls: [] },
    { role: "user", content: "Well?" },
  ],
  tools: [tool],
  toolChoice: "required",
  maxTokens: 2000,
};

describe("toAnthropicBody", () => {
  it("translates a conversation with tools, merging tool results into one user turn", () => {
    expect(toAnthropicBody(request)).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 2000,
      system: "You review code.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Review this." }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading two files." },
            { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
            { type: "tool_use", id: "toolu_2", name: "read_file", input: { _unparsed_arguments: "not json" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "const a = 1;" },
            { type: "tool_result", tool_use_id: "toolu_2" },
            { type: "text", text: "Also check b." },
            // The empty assistant message in between is left out: its neighbours join.
            { type: "text", text: "Well?" },
          ],
        },
      ],
      tools: [{ name: "read_file", description: "Reads a file.", input_schema: tool.parameters }],
      tool_choice: { type: "any" },
      stream: false,
    });
  });

  it.each([
    ["auto", "auto"],
    ["none", "none"],
  ] as const)("maps toolChoice %s to %s", (choice, type) => {
    expect(toAnthropicBody({ ...request, toolChoice: choice }).tool_choice).toEqual({ type });
  });

  it("leaves out tools, tool_choice and an empty system prompt", () => {
    const body = toAnthropicBody({ ...request, system: "", tools: [], messages: [{ role: "user", content: "hi" }] });
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 2000,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      stream: false,
    });
  });
});
