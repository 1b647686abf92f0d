import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";

export type ModelProtocol = "openai" | "anthropic";

/** A tool call the stand-in's model makes: `arguments` as JSON text (sent as written) or an object (serialised). */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: string | Readonly<Record<string, unknown>>;
  /** Default `call_<reply>_<n>` (openai) or `toolu_<reply>_<n>` (anthropic). */
  readonly id?: string;
}

/**
 * One scripted answer, written once for both protocols. Plain fields make a 200 answer in the
 * protocol of the request: `text` and `toolCalls`, finished by `finish` (default `tool_calls` when
 * there are calls, else `stop`; mapped to Anthropic's `end_turn` / `tool_use` / `max_tokens`; any
 * other string is sent as it is). `status` (≥ 400) answers with the protocol's error body instead;
 * `raw` with a body verbatim. `stream` answers with server-sent events in the protocol's format
 * although the client did not ask for them. Build them with {@link reply}.
 */
export interface ModelReply {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly finish?: "stop" | "tool_calls" | "length" | (string & {});
  /** Default: about a token per 4 characters of the request body and of the answer. */
  readonly usage?: { readonly input: number; readonly output: number } | "none";
  readonly stream?: boolean;
  readonly status?: number;
  /** The `Retry-After` header of an error answer (`"1"`, or an HTTP date). */
  readonly retryAfter?: string;
  /** The message of an error answer's body. */
  readonly errorMessage?: string;
  /** A body sent verbatim (status `status` or 200). */
  readonly raw?: string;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering (on top of the stand-in's latency). */
  readonly delayMs?: number;
}

/** Builders for the replies the AI review meets. */
export const reply = {
  text: (text: string, more: ModelReply = {}): ModelReply => ({ ...more, text }),
  toolCalls: (calls: readonly ScriptedToolCall[], more: ModelReply = {}): ModelReply => ({ ...more, toolCalls: calls }),
  toolCall: (name: string, args: ScriptedToolCall["arguments"], more: ModelReply = {}): ModelReply => ({ ...more, toolCalls: [{ name, arguments: args }] }),
  /** The answer cut off by the output cap. */
  length: (text = "", more: ModelReply = {}): ModelReply => ({ ...more, text, finish: "length" }),
  /** No text, no tool call, finished normally. */
  empty: (more: ModelReply = {}): ModelReply => ({ ...more, text: "" }),
  /** A tool call the server did not parse: the model's markup comes back as content. */
  leakedToolCall: (name: string, args: Readonly<Record<string, unknown>>, more: ModelReply = {}): ModelReply => ({
    ...more,
    text: `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`,
  }),
  status: (status: number, more: Omit<ModelReply, "status"> = {}): ModelReply => ({ ...more, status }),
  raw: (body: string, contentType = "application/json", more: ModelReply = {}): ModelReply => ({ ...more, raw: body, contentType }),
};

/** One request the stand-in received, in arrival order (model calls and anything else). */
export interface ModelStandInRequest {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** Which route it reached: null for any other path. */
  readonly protocol: ModelProtocol | null;
  /** Lowercased names, as node:http gives them. */
  readonly headers: Readonly<IncomingHttpHeaders>;
  /** Every header as sent: name, value, name, value… */
  readonly rawHeaders: readonly string[];
  readonly bodyText: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: unknown;
  /** The status answered (0 until it is). */
  status: number;
  /**
   * Milliseconds from the body's last byte to the answer's (0 until answered): the stand-in's own
   * time, which a benchmark subtracts from a caller's wall time to leave the caller's.
   */
  handledMs: number;
}

export type Script = readonly ModelReply[] | ((request: ModelStandInRequest, index: number) => ModelReply);

export interface ModelStandIn {
  /** The base URL for a protocol: `http://127.0.0.1:<port>/v1` (openai) or `http://127.0.0.1:<port>` (anthropic). */
  url(protocol: ModelProtocol): string;
  /** Every request, in order. */
  readonly requests: readonly ModelStandInRequest[];
  /** The requests that reached a model route (of one protocol, if named). */
  modelRequests(protocol?: ModelProtocol): ModelStandInRequest[];
  /**
   * Replaces the script: a queue of replies, or a function of each model request and its index
   * (counted from 0 from this call). A model request past the queue's end is answered 400
   * ("no scripted reply"), which the client takes as a refusal, not a retry.
   */
  script(script: Script): void;
  /** Adds latency before every answer (default 0). */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

export interface ModelStandInOptions {
  readonly latencyMs?: number;
  /** When set, model requests must carry it in the protocol's auth header (else 401, no reply used). */
  readonly apiKey?: string;
}

/**
 * A local model server for both protocols the client speaks: `POST /v1/chat/completions`
 * (OpenAI-compatible) and `POST /v1/messages` (Anthropic), on 127.0.0.1 and a free port. It
 * records every request whole (headers as sent, raw body text) and answers model requests from a
 * script of protocol-neutral replies.
 */
export async function startModelStandIn(options: ModelStandInOptions = {}): Promise<ModelStandIn> {
  const requests: ModelStandInRequest[] = [];
  let script: Script = [];
  let scripted = 0;
  let latencyMs = options.latencyMs ?? 0;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end(`stand-in failure: ${String(error)}`);
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const bodyText = await readBody(request);
    const bodyRead = performance.now();
    const path = new URL(request.url ?? "/", "http://stand-in").pathname;
    const protocol = request.method !== "POST" ? null : path === "/v1/chat/completions" ? "openai" : path === "/v1/messages" ? "anthropic" : null;
    const record: ModelStandInRequest = {
      at: Date.now(),
      method: request.method ?? "GET",
      path,
      protocol,
      headers: request.headers,
      rawHeaders: request.rawHeaders,
      bodyText,
      json: parseJson(bodyText),
      status: 0,
      handledMs: 0,
    };
    requests.push(record);
    response.on("finish", () => {
      record.status = response.statusCode;
      record.handledMs = performance.now() - bodyRead;
    });
    if (protocol === null) {
      sendJson(response, 404, { error: { message: `no route for ${record.method} ${path}` } });
      return;
    }
    if (options.apiKey !== undefined && presentedKey(protocol, request.headers) !== options.apiKey) {
      sendJson(response, 401, errorBody(protocol, 401, "invalid api key"));
      return;
    }
    const index = scripted++;
    const answer = typeof script === "function" ? script(record, index) : script[index];
    const wait = latencyMs + (answer?.delayMs ?? 0);
    if (wait > 0) await delay(wait);
    if (answer === undefined) {
      sendJson(response, 400, errorBody(protocol, 400, `the stand-in has no scripted reply for model request ${index}`));
      return;
    }
    const model = modelOf(record.json);
    if (answer.raw !== undefined) {
      response.writeHead(answer.status ?? 200, { "content-type": answer.contentType ?? "application/json", ...answer.headers });
      response.end(answer.raw);
    } else if (answer.status !== undefined && answer.status >= 400) {
      const headers = { ...(answer.retryAfter === undefined ? {} : { "retry-after": answer.retryAfter }), ...answer.headers };
      sendJson(response, answer.status, errorBody(protocol, answer.status, answer.errorMessage ?? `scripted ${answer.status}`), headers);
    } else if (answer.stream === true) {
      response.writeHead(answer.status ?? 200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...answer.headers });
      const events = protocol === "openai" ? openAiEvents(answer, model, index, bodyText) : anthropicEvents(answer, model, index, bodyText);
      for (const event of events) {
        if (response.destroyed) return;
        response.write(event);
      }
      response.end();
    } else {
      const body = protocol === "openai" ? openAiCompletion(answer, model, index, bodyText) : anthropicMessage(answer, model, index, bodyText);
      sendJson(response, answer.status ?? 200, body, answer.headers);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: (protocol) => (protocol === "openai" ? `${origin}/v1` : origin),
    requests,
    modelRequests: (protocol) => requests.filter((r) => r.protocol !== null && (protocol === undefined || r.protocol === protocol)),
    script: (next) => {
      script = next;
      scripted = 0;
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

// ---- OpenAI chat completions -------------------------------------------------------------

function openAiFinish(answer: ModelReply): string {
  return answer.finish ?? ((answer.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
}

function openAiToolCalls(answer: ModelReply, index: number) {
  return (answer.toolCalls ?? []).map((call, n) => ({
    id: call.id ?? `call_${index}_${n}`,
    type: "function",
    function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
  }));
}

function openAiUsage(answer: ModelReply, bodyText: string) {
  const usage = usageOf(answer, bodyText);
  return usage === null ? undefined : { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
}

function openAiCompletion(answer: ModelReply, model: string, index: number, bodyText: string): unknown {
  const toolCalls = openAiToolCalls(answer, index);
  return {
    id: `chatcmpl-standin-${index}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    // Fields a provider adds that the client does not read: it must ignore them.
    system_fingerprint: "fp_standin",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.text ?? (toolCalls.length > 0 ? null : ""),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: openAiFinish(answer),
      },
    ],
    usage: openAiUsage(answer, bodyText),
  };
}

function openAiEvents(answer: ModelReply, model: string, index: number, bodyText: string): string[] {
  const chunk = (choice: unknown, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: `chatcmpl-standin-${index}`, object: "chat.completion.chunk", created: 0, model, choices: choice === null ? [] : [choice], ...extra })}\n\n`;
  const events = [chunk({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null })];
  for (const piece of pieces(answer.text ?? "")) events.push(chunk({ index: 0, delta: { content: piece }, finish_reason: null }));
  for (const [n, call] of openAiToolCalls(answer, index).entries()) {
    events.push(
      chunk({
        index: 0,
        delta: { tool_calls: [{ index: n, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] },
        finish_reason: null,
      }),
    );
    for (const piece of pieces(call.function.arguments)) {
      events.push(chunk({ index: 0, delta: { tool_calls: [{ index: n, function: { arguments: piece } }] }, finish_reason: null }));
    }
  }
  events.push(chunk({ index: 0, delta: {}, finish_reason: openAiFinish(answer) }));
  const usage = openAiUsage(answer, bodyText);
  if (usage !== undefined) events.push(chunk(null, { usage }));
  events.push("data: [DONE]\n\n");
  return events;
}

// ---- Anthropic messages --------------------------------------------------------------------

function anthropicStop(answer: ModelReply): string {
  const finish = openAiFinish(answer);
  return finish === "stop" ? "end_turn" : finish === "tool_calls" ? "tool_use" : finish === "length" ? "max_tokens" : finish;
}

function anthropicInput(call: ScriptedToolCall): unknown {
  if (typeof call.arguments !== "string") return call.arguments;
  // Text that is not JSON cannot be an Anthropic `input`: sent as a string (a broken server).
  return parseJson(call.arguments) ?? call.arguments;
}

type AnthropicBlock =
  { readonly type: "text"; readonly text: string } | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown };

function anthropicBlocks(answer: ModelReply, index: number): AnthropicBlock[] {
  const text: AnthropicBlock[] = answer.text === undefined || answer.text === "" ? [] : [{ type: "text", text: answer.text }];
  const tools = (answer.toolCalls ?? []).map((call, n): AnthropicBlock => ({
    type: "tool_use",
    id: call.id ?? `toolu_${index}_${n}`,
    name: call.name,
    input: anthropicInput(call),
  }));
  return [...text, ...tools];
}

function anthropicUsage(answer: ModelReply, bodyText: string) {
  const usage = usageOf(answer, bodyText);
  return usage === null ? undefined : { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function anthropicMessage(answer: ModelReply, model: string, index: number, bodyText: string): unknown {
  return {
    id: `msg_standin_${index}`,
    type: "message",
    role: "assistant",
    model,
    content: anthropicBlocks(answer, index),
    stop_reason: anthropicStop(answer),
    stop_sequence: null,
    usage: anthropicUsage(answer, bodyText),
  };
}

function anthropicEvents(answer: ModelReply, model: string, index: number, bodyText: string): string[] {
  const event = (name: string, data: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const usage = anthropicUsage(answer, bodyText);
  const events = [
    event("message_start", {
      message: {
        id: `msg_standin_${index}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage === undefined ? undefined : { ...usage, output_tokens: 1 },
      },
    }),
    event("ping", {}),
  ];
  for (const [n, block] of anthropicBlocks(answer, index).entries()) {
    if (block.type === "text") {
      events.push(event("content_block_start", { index: n, content_block: { type: "text", text: "" } }));
      for (const piece of pieces(block.text)) events.push(event("content_block_delta", { index: n, delta: { type: "text_delta", text: piece } }));
    } else {
      events.push(event("content_block_start", { index: n, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }));
      const json = typeof block.input === "string" ? block.input : JSON.stringify(block.input);
      for (const piece of pieces(json)) events.push(event("content_block_delta", { index: n, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    events.push(event("content_block_stop", { index: n }));
  }
  events.push(
    event("message_delta", {
      delta: { stop_reason: anthropicStop(answer), stop_sequence: null },
      usage: usage === undefined ? undefined : { output_tokens: usage.output_tokens },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}

// ---- shared --------------------------------------------------------------------------------

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

function errorBody(protocol: ModelProtocol, status: number, message: string): unknown {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return protocol === "openai" ? { error: { message, type, param: null, code: null } } : { type: "error", error: { type, message } };
}

function presentedKey(protocol: ModelProtocol, headers: IncomingHttpHeaders): string | undefined {
  if (protocol === "anthropic") return typeof headers["x-api-key"] === "string" ? headers["x-api-key"] : undefined;
  return headers.authorization?.replace(/^Bearer /, "");
}

function usageOf(answer: ModelReply, bodyText: string): { input: number; output: number } | null {
  if (answer.usage === "none") return null;
  if (answer.usage !== undefined) return answer.usage;
  const written =
    (answer.text ?? "").length + (answer.toolCalls ?? []).reduce((sum, call) => sum + call.name.length + JSON.stringify(call.arguments).length, 0);
  return { input: Math.ceil(bodyText.length / 4), output: Math.max(1, Math.ceil(written / 4)) };
}

/** Text in at most ~64 pieces (at least 16 characters each), as a server streams it. */
function pieces(text: string): string[] {
  const size = Math.max(16, Math.ceil(text.length / 64));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

function modelOf(json: unknown): string {
  return typeof json === "object" && json !== null && typeof (json as { model?: unknown }).model === "string" ? (json as { model: string }).model : "stand-in";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}
