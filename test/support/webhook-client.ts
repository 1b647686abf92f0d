import { createHmac } from "node:crypto";

export interface WebhookDelivery {
  readonly event: string;
  readonly deliveryId: string;
  /** The JSON body; a string is sent as it is (for malformed bodies). */
  readonly body: unknown;
  readonly secret: string;
  /** Replaces or removes (undefined) any header, for forged and malformed deliveries. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

/** GitHub's `X-Hub-Signature-256` of a raw body. */
export function signBody(secret: string, raw: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
}

/** Sends a delivery the way GitHub does (signed raw JSON) and returns the status and body. */
export async function sendWebhook(url: string, delivery: WebhookDelivery): Promise<{ status: number; body: string }> {
  const raw = typeof delivery.body === "string" ? delivery.body : JSON.stringify(delivery.body);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/test",
    "x-github-event": delivery.event,
    "x-github-delivery": delivery.deliveryId,
    "x-hub-signature-256": signBody(delivery.secret, raw),
  };
  for (const [name, value] of Object.entries(delivery.headers ?? {})) {
    if (value === undefined) Reflect.deleteProperty(headers, name);
    else headers[name] = value;
  }
  const response = await fetch(url, { method: "POST", headers, body: raw });
  return { status: response.status, body: await response.text() };
}
