import { randomUUID } from "node:crypto";
import type { StandInState } from "./github-stand-in.js";
import type { StandInRoute } from "./github-stand-in-routes.js";
import { sendWebhook } from "./webhook-client.js";

/** One attempt at delivering the App's webhook, as GitHub records it. */
export interface StandInHookDelivery {
  readonly id: number;
  readonly guid: string;
  readonly deliveredAt: string;
  readonly redelivery: boolean;
  readonly statusCode: number;
  readonly status: string;
  readonly event: string;
  readonly body: unknown;
}

/** The App's webhook: where GitHub sends, and every attempt it made, oldest first. */
export interface HookDeliveries {
  /** The webhook URL and secret; deliveries fail to connect while it is null. */
  target: { readonly url: string; readonly secret: string } | null;
  readonly attempts: StandInHookDelivery[];
  /** Sends an event as GitHub does (new guid unless given), records the attempt and returns it. */
  deliver(event: string, body: unknown, guid?: string): Promise<StandInHookDelivery>;
  /** Resolves when every redelivery asked for so far has been attempted. */
  settled(): Promise<void>;
}

interface Store extends HookDeliveries {
  /** Sends `attempt`'s event again, later, as GitHub does after answering 202. */
  redeliver(attempt: StandInHookDelivery): void;
}

const stores = new WeakMap<StandInState, Store>();
const PER_PAGE_MAX = 100;
const CURSOR = /^v1_(\d+)$/;

/** The stand-in's webhook deliveries (one store per stand-in). */
export function hookDeliveriesOf(state: StandInState): HookDeliveries {
  return storeOf(state);
}

function storeOf(state: StandInState): Store {
  const known = stores.get(state);
  if (known !== undefined) return known;
  const inFlight: Promise<unknown>[] = [];
  const send = async (event: string, body: unknown, guid: string, redelivery: boolean): Promise<StandInHookDelivery> => {
    const target = store.target;
    const answer =
      target === null ? { status: 0 } : await sendWebhook(target.url, { event, deliveryId: guid, body, secret: target.secret }).catch(() => ({ status: 0 }));
    const attempt: StandInHookDelivery = {
      id: state.nextId++,
      guid,
      deliveredAt: new Date().toISOString(),
      redelivery,
      statusCode: answer.status,
      status:
        answer.status === 0 ? "failed to connect" : answer.status >= 200 && answer.status < 300 ? "OK" : `Invalid HTTP Response: ${String(answer.status)}`,
      event,
      body,
    };
    store.attempts.push(attempt);
    return attempt;
  };
  const store: Store = {
    target: null,
    attempts: [],
    deliver: (event, body, guid = randomUUID()) => send(event, body, guid, false),
    settled: async () => {
      await Promise.all(inFlight);
    },
    redeliver: (attempt) => {
      inFlight.push(send(attempt.event, attempt.body, attempt.guid, true));
    },
  };
  stores.set(state, store);
  return store;
}

/**
 * `GET /app/hook/deliveries` and `POST /app/hook/deliveries/{id}/attempts` as GitHub documents
 * them (REST "Webhooks for an App"): App JWT only; the listing newest first, `per_page` (≤ 100,
 * default 30) with the next page's `cursor` in the Link header; a redelivery is answered 202 and
 * sent afterwards with a new id, the same guid and `redelivery: true`; an unknown id is 404.
 */
export function hookDeliveryRoutes(state: StandInState): StandInRoute[] {
  const json = (attempt: StandInHookDelivery): unknown => {
    const payload = attempt.body as { action?: unknown; installation?: { id?: unknown }; repository?: { id?: unknown } };
    return {
      id: attempt.id,
      guid: attempt.guid,
      delivered_at: attempt.deliveredAt,
      redelivery: attempt.redelivery,
      duration: 0.01,
      status: attempt.status,
      status_code: attempt.statusCode,
      event: attempt.event,
      action: typeof payload.action === "string" ? payload.action : null,
      installation_id: typeof payload.installation?.id === "number" ? payload.installation.id : null,
      repository_id: typeof payload.repository?.id === "number" ? payload.repository.id : null,
      throttled_at: null,
    };
  };
  return [
    {
      method: "GET",
      pattern: /^\/app\/hook\/deliveries$/,
      auth: "app",
      handle: ({ query }) => {
        const perPage = Math.min(PER_PAGE_MAX, Number(query.per_page ?? "30"));
        const cursor = query.cursor === undefined ? null : CURSOR.exec(query.cursor);
        if (!Number.isInteger(perPage) || perPage < 1 || (query.cursor !== undefined && cursor === null)) {
          return { status: 422, body: { message: "Validation Failed" } };
        }
        const before = cursor === null ? Infinity : Number(cursor[1]);
        const newestFirst = storeOf(state)
          .attempts.filter((attempt) => attempt.id < before)
          .sort((a, b) => b.id - a.id);
        const page = newestFirst.slice(0, perPage);
        const last = page.at(-1);
        const headers =
          newestFirst.length > perPage && last !== undefined
            ? { link: `<http://stand-in/app/hook/deliveries?per_page=${String(perPage)}&cursor=v1_${String(last.id)}>; rel="next"` }
            : undefined;
        return { status: 200, body: page.map(json), ...(headers === undefined ? {} : { headers }) };
      },
    },
    {
      method: "POST",
      pattern: /^\/app\/hook\/deliveries\/(\d+)\/attempts$/,
      auth: "app",
      handle: ({ params }) => {
        const store = storeOf(state);
        const attempt = store.attempts.find((a) => a.id === Number(params[0]));
        if (attempt === undefined) return { status: 404, body: { message: "Not Found" } };
        store.redeliver(attempt);
        return { status: 202, body: {} };
      },
    },
  ];
}
