import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import type { GitHubApp } from "@reviewbot/github/create-github-app";
import { z } from "zod";

/** One delivery of the App's webhook as `GET /app/hook/deliveries` lists it (GitHub's REST reference). */
export const HookDelivery = z.object({
  id: z.number().int().positive(),
  guid: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, "must be a delivery guid"),
  delivered_at: z.iso.datetime({ offset: true }),
  redelivery: z.boolean(),
  status: z.string().max(1000),
  status_code: z.number().int().min(0).max(999),
  event: z.string().max(100),
  action: z.string().max(100).nullable(),
  installation_id: z.number().int().nullable(),
  repository_id: z.number().int().nullable(),
});
export type HookDelivery = z.infer<typeof HookDelivery>;

const Page = z.array(HookDelivery).max(100);
// GitHub gives the next page's cursor only in the Link header: `<…?cursor=v1_123>; rel="next"`.
const NEXT_CURSOR = /<[^>]*[?&]cursor=([^&>]+)[^>]*>;\s*rel="next"/;

export interface ListWindow {
  /** Deliveries older than this (epoch ms) end the listing. */
  readonly since: number;
  /** Pages read at most: the listing is bounded even if GitHub never says "last". */
  readonly maxPages: number;
  /** Deliveries per page, at most GitHub's 100. */
  readonly perPage: number;
}

/**
 * The App's deliveries since `window.since`, newest first, read with the App's JWT page by page
 * (`per_page` and the Link header's cursor) until a delivery older than the window, the last
 * page or `maxPages`. Each page is checked against GitHub's documented shape (GITHUB_API_FAILED).
 */
export async function listHookDeliveries(app: GitHubApp, window: ListWindow): Promise<HookDelivery[]> {
  const found: HookDelivery[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < window.maxPages; page++) {
    const response = await app.octokit.request("GET /app/hook/deliveries", { per_page: window.perPage, ...(cursor === undefined ? {} : { cursor }) });
    const deliveries = parseOrThrow(Page, response.data, "GITHUB_API_FAILED", {
      message: (path) => `GitHub's answer to GET /app/hook/deliveries has the wrong shape at ${path}`,
    });
    for (const delivery of deliveries) {
      if (Date.parse(delivery.delivered_at) < window.since) return found;
      found.push(delivery);
    }
    cursor = NEXT_CURSOR.exec(response.headers.link ?? "")?.[1];
    if (cursor === undefined) return found;
    cursor = decodeURIComponent(cursor);
  }
  return found;
}

/** Asks GitHub to send a delivery again (`POST /app/hook/deliveries/{id}/attempts`, 202): same guid, new id. */
export async function redeliver(app: GitHubApp, deliveryId: number): Promise<void> {
  await app.octokit.request("POST /app/hook/deliveries/{delivery_id}/attempts", { delivery_id: deliveryId });
}
