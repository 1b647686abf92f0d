import type { Octokit } from "@octokit/core";
import { AppError } from "@reviewbot/core/errors";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import { z } from "zod";
import type { GitHubApp } from "./create-github-app.js";

/** The account reviewbot posts as: its App's bot user, `<slug>[bot]`. */
export interface AppIdentity {
  readonly login: string;
  readonly userId: number;
}

/** The author GitHub lists on a review or a review comment. */
export interface ListedAuthor {
  readonly id?: number;
  readonly login?: string;
  readonly type?: string;
}

const AuthenticatedApp = z.object({ id: z.int().positive(), slug: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "must be an App slug") });
const BotUser = z.object({ id: z.int().positive(), login: z.string().min(1), type: z.literal("Bot") });

/**
 * Whether GitHub lists `author` as our App's bot user. Only the user id counts: it is never given
 * to another account, while a login can be renamed and anyone can quote our hidden markers; any
 * other App's bot is type `Bot` too (docs/architecture.md, layer 6: people steer, the PR does not).
 */
export function isOurAuthor(identity: AppIdentity, author: ListedAuthor | null | undefined): boolean {
  return author?.id === identity.userId;
}

/**
 * Reads our App's slug from `GET /app` (App JWT; the App must be the one our key signs for), once
 * per api process: commands are `@<slug> …`, and our bot user is `<slug>[bot]`. A failed look-up is
 * not kept, so the next caller asks again. A wrong answer is `GITHUB_API_FAILED`.
 */
export function appSlugOf(app: GitHubApp, appId: number): () => Promise<string> {
  return onceUntilFailure(async () => {
    const { data } = await app.octokit.request("GET /app");
    const details = { appId };
    const ours = parseOrThrow(AuthenticatedApp, data, "GITHUB_API_FAILED", {
      message: (p) => `GitHub's answer to GET /app has the wrong shape at ${p}`,
      details,
    });
    if (ours.id !== appId) throw new AppError("GITHUB_API_FAILED", `GET /app names App ${String(ours.id)}, not the App our key signs for`, { details });
    return ours.slug;
  });
}

/**
 * Reads who we post as, once per api process: the App's slug ({@link appSlugOf}), then its bot
 * user `<slug>[bot]` from `GET /users/{login}` (through an installation's client: the endpoint
 * takes no App JWT). A failed look-up is not kept, so the next publication asks again. A wrong
 * answer is `GITHUB_API_FAILED`.
 */
export function appIdentityOf(app: GitHubApp, appId: number): (installation: Octokit) => Promise<AppIdentity> {
  const slugOf = appSlugOf(app, appId);
  return onceUntilFailure(async (installation: Octokit): Promise<AppIdentity> => {
    const login = `${await slugOf()}[bot]`;
    const { data: userData } = await installation.request("GET /users/{username}", { username: login });
    const bot = parseOrThrow(BotUser, userData, "GITHUB_API_FAILED", {
      message: (p) => `GitHub's answer to GET /users/${login} has the wrong shape at ${p}`,
      details: { appId },
    });
    return { login: bot.login, userId: bot.id };
  });
}

/** `lookUp`'s first answer, shared by every later call; a failure is forgotten, so the next call asks again. */
function onceUntilFailure<A extends unknown[], T>(lookUp: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  let known: Promise<T> | null = null;
  return (...args) => {
    known ??= lookUp(...args).catch((error: unknown) => {
      known = null;
      throw error;
    });
    return known;
  };
}
