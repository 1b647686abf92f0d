import { createHmac } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { acceptDelivery, type Accepted, type DeliveryQueues } from "./accept-delivery.js";
import type { ApiMetrics } from "../api-metrics.js";
import { createBodyReadSlots, type BodyReadSlots } from "./body-read-slots.js";
import { decideDelivery, type DeliveryFilter } from "./decide-delivery.js";
import { bodyDigest } from "./delivery-ledger.js";
import { readBodyChunks, refuseDeclaredLength, type BodyPace } from "../http-kit/read-raw-body.js";
import { rejectRequest } from "../http-kit/reject-request.js";
import { digestMatches, parseSignatureHeader } from "./verify-signature.js";

export interface WebhookDeps {
  readonly secret: string;
  readonly maxBytes: number;
  /** Webhook bodies read at once; one more waits for a slot (up to `pace.deadlineMs`), then is answered 503 WEBHOOK_BUSY unread. */
  readonly maxConcurrentReads: number;
  /** Reads plus waits one address (Express's `request.ip`: see REVIEWBOT_TRUST_PROXY) may have at once; one more is 503 WEBHOOK_BUSY at once. */
  readonly readsPerSource: number;
  /** How fast a body must arrive; slower is 408 WEBHOOK_TOO_SLOW, the connection closed and the slot given back. */
  readonly pace: BodyPace;
  readonly filter: Omit<DeliveryFilter, "appSlug">;
  /** Our App's slug, asked of GitHub once per process (packages/github/src/app-identity.ts); null without an App. */
  readonly appSlug: (() => Promise<string>) | null;
  readonly queues: DeliveryQueues;
  /** How long Redis may take to confirm a delivery before it is refused with 503. */
  readonly deadlineMs: number;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
}

// GitHub's event names are lower-case words joined by `_`, some with digits (`projects_v2_item`).
const EVENT = /^[a-z0-9_]{1,64}$/;
const DELIVERY = /^[A-Za-z0-9-]{1,100}$/;
const COMMENT_EVENTS: ReadonlySet<string> = new Set(["issue_comment", "pull_request_review_comment"]);
/** Seconds a client refused with WEBHOOK_BUSY is asked to wait: a body read ends within its deadline. */
const BUSY_RETRY_AFTER_S = 1;

/**
 * `POST /api/github/webhooks`: the headers (content type, a well-formed signature, event and
 * delivery id) and the declared size before a byte of the body is read; then a bounded number of
 * bodies read at once (and per address), each at a minimum pace, their HMAC computed while they
 * stream; then JSON, in that order: nothing
 * is parsed before the signature holds. Answers 202 as soon as Redis confirms
 * (accepted, duplicate, ignored); every refusal is logged once and counted.
 */
export function webhookHandler(deps: WebhookDeps): RequestHandler {
  const slots = createBodyReadSlots({ limit: deps.maxConcurrentReads, perSource: deps.readsPerSource, waitMs: deps.pace.deadlineMs });
  return async (request, response) => {
    // Until the signature holds, the event header is the sender's word: not a metric label.
    let event = "unverified";
    try {
      if (!isJson(request.headers["content-type"])) throw new AppError("WEBHOOK_CONTENT_TYPE", "the body must be application/json");
      const signature = parseSignatureHeader(header(request, "x-hub-signature-256"));
      if (signature === null) throw new AppError("WEBHOOK_SIGNATURE_INVALID", "X-Hub-Signature-256 is missing or malformed");
      const eventHeader = header(request, "x-github-event");
      const deliveryId = header(request, "x-github-delivery");
      if (eventHeader === undefined || !EVENT.test(eventHeader)) throw new AppError("WEBHOOK_MALFORMED", "X-GitHub-Event is missing or malformed");
      if (deliveryId === undefined || !DELIVERY.test(deliveryId)) throw new AppError("WEBHOOK_MALFORMED", "X-GitHub-Delivery is missing or malformed");
      const raw = await readSignedBody(request, deps, slots, signature);
      event = eventHeader;
      const payload = parseJson(raw);
      const log = deps.logger.child({ deliveryId, event });
      // Only comments can carry a command `@<slug> …`: no other event waits for the slug.
      const appSlug = deps.appSlug !== null && COMMENT_EVENTS.has(event) ? await deps.appSlug() : null;
      const decision = decideDelivery(event, deliveryId, payload, { ...deps.filter, appSlug });
      if (decision.kind === "ping" || decision.kind === "ignore") {
        const reason = decision.kind === "ping" ? "" : decision.reason;
        deps.metrics.webhooks.inc({ event, outcome: decision.kind === "ping" ? "ping" : "ignored", reason });
        log.info({ reason }, decision.kind === "ping" ? "webhook ping" : "webhook ignored");
        response.status(202).json(decision.kind === "ping" ? { status: "pong" } : { status: "ignored", reason });
        return;
      }
      const accepted = await acceptDelivery(deps.queues, decision, bodyDigest(raw), deps.deadlineMs);
      acknowledge(deps, log, event, accepted, response);
    } catch (err) {
      reject(deps, request, response, event, err);
    }
  };
}

/**
 * Reads the body in one of the slots, hashing it as it streams; only a body whose HMAC matches
 * is concatenated. The signature can only be judged at the end, so the slots, not the hash, bound
 * what a stranger can make the api hold.
 */
async function readSignedBody(request: Request, deps: WebhookDeps, slots: BodyReadSlots, signature: Buffer): Promise<Buffer> {
  try {
    refuseDeclaredLength(request, deps.maxBytes);
  } catch (err) {
    throw asWebhookError(err);
  }
  const source = sourceOf(request);
  const release = await slots.acquire(source);
  if (release === "source") {
    throw new AppError("WEBHOOK_BUSY", "too many webhook bodies from this address are being read; retry later", {
      details: { source, limit: deps.readsPerSource, retryAfterMs: BUSY_RETRY_AFTER_S * 1000 },
    });
  }
  if (release === "busy") {
    throw new AppError("WEBHOOK_BUSY", "too many webhook bodies are being read; retry later", {
      details: { limit: deps.maxConcurrentReads, retryAfterMs: BUSY_RETRY_AFTER_S * 1000 },
    });
  }
  try {
    const hmac = createHmac("sha256", deps.secret);
    const body = await readBodyChunks(request, deps.maxBytes, (chunk) => hmac.update(chunk), deps.pace).catch((err: unknown) => {
      throw asWebhookError(err);
    });
    if (!digestMatches(hmac.digest(), signature)) throw new AppError("WEBHOOK_SIGNATURE_INVALID", "X-Hub-Signature-256 does not match the body");
    return Buffer.concat(body.chunks, body.total);
  } finally {
    release();
  }
}

/** The body kit's generic codes under the webhook's own, which its metrics, logs and docs/errors.md use. */
function asWebhookError(err: unknown): unknown {
  if (!isAppError(err)) return err;
  if (err.code === "BODY_TOO_LARGE") return new AppError("WEBHOOK_TOO_LARGE", err.message, { details: err.details, cause: err });
  if (err.code === "BODY_UNREADABLE") return new AppError("WEBHOOK_MALFORMED", err.message, { cause: err });
  if (err.code === "BODY_TOO_SLOW") return new AppError("WEBHOOK_TOO_SLOW", err.message, { details: err.details, cause: err });
  return err;
}

function acknowledge(deps: WebhookDeps, log: Logger, event: string, accepted: Accepted, response: Response): void {
  if (accepted.status === "replayed" || accepted.status === "stale" || accepted.status === "not_ours" || accepted.status === "paused") {
    const reason = IGNORED_REASONS[accepted.status];
    deps.metrics.webhooks.inc({ event, outcome: "ignored", reason });
    // A signed body under a new delivery id is a captured delivery sent again: worth a warning.
    if (accepted.status === "replayed") log.warn({ reason }, "webhook ignored");
    else log.info({ reason, ...(accepted.status === "stale" ? { recordedHead: accepted.recordedHead } : {}) }, "webhook ignored");
    response.status(202).json({ status: "ignored", reason });
    return;
  }
  if (accepted.status === "dismissed") {
    deps.metrics.webhooks.inc({ event, outcome: "dismissed", reason: "" });
    log.info({ outcome: "dismissed" }, "finding dismissed");
    response.status(202).json({ status: "dismissed" });
    return;
  }
  deps.metrics.webhooks.inc({ event, outcome: accepted.status, reason: "" });
  const superseded = accepted.status === "accepted" ? { removed: accepted.removed, cancelled: accepted.cancelled } : {};
  log.info({ jobId: accepted.jobId, outcome: accepted.status, ...superseded }, "webhook acknowledged");
  response.status(202).json(accepted.status === "accepted" ? { status: "accepted", jobId: accepted.jobId } : { status: "duplicate" });
}

const IGNORED_REASONS = { replayed: "replayed", stale: "stale_head", not_ours: "not_our_thread", paused: "paused" } as const;

function reject(deps: WebhookDeps, request: Request, response: Response, event: string, err: unknown): void {
  // An unread body (refused by its headers, or never sent) must not be parsed as the next request.
  if (!request.complete) response.setHeader("Connection", "close");
  const fields = {
    event,
    deliveryId: header(request, "x-github-delivery")?.slice(0, 100),
    remoteAddress: request.socket.remoteAddress,
    source: sourceOf(request),
  };
  const error = rejectRequest(response, err, { logger: deps.logger, fields, refused: "webhook refused" }, notAccepted);
  deps.metrics.webhooks.inc({ event, outcome: "rejected", reason: error.code });
  // A sender too slow to finish its body is not waited for while the answer drains either.
  if (error.code === "WEBHOOK_TOO_SLOW") response.once("finish", () => request.socket.destroy());
}

/**
 * Whom a read is counted against: the socket's address, or the forwarded one when the operator
 * named the proxy in REVIEWBOT_TRUST_PROXY (Express's `request.ip` decides which).
 */
function sourceOf(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? "unknown";
}

/** Anything else that stops a delivery is Redis not taking it: GitHub shows it failed, to redeliver. */
function notAccepted(err: unknown): AppError {
  return new AppError("QUEUE_UNAVAILABLE", "the delivery could not be accepted", { cause: err });
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

function header(request: Request, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8")) as unknown;
  } catch {
    throw new AppError("WEBHOOK_MALFORMED", "the body is not valid JSON");
  }
}
