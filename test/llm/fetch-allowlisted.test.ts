import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fetchAllowlisted, type FetchAllowlistedOptions } from "@reviewbot/llm/fetch-allowlisted";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

/**
 * A real HTTPS server for `docs.test` with a self-signed certificate, on port 443 of a random
 * loopback address (the fetcher only ever dials 443, so the suite needs root or
 * CAP_NET_BIND_SERVICE; a random 127/8 address keeps it clear of anything else on the machine).
 * DNS is the test's `lookup`, which counts its calls.
 */
const SERVER_IP = `127.${1 + Math.floor(Math.random() * 254)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
const TEN_MB = 10 * 1024 * 1024;

interface Served {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Whether the server wrote the whole body before the connection closed. */
  finished?: boolean;
  bytesWritten?: number;
}

let dir: string;
let cert: Buffer;
let server: Server;
const served: Served[] = [];
const lookups: string[] = [];
let answers: string[][] = [];

/** Resolves once `res` drains or closes (a client that hung up never drains it). */
function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}

/** Writes `total` bytes of `a` in 64 KiB chunks, waiting whenever the socket pushes back. */
async function stream(res: ServerResponse, total: number, entry: Served): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, "a");
  let written = 0;
  while (written < total && !res.destroyed) {
    const part = chunk.subarray(0, Math.min(chunk.length, total - written));
    written += part.length;
    entry.bytesWritten = written;
    if (!res.write(part)) await writable(res);
  }
  res.end();
}

async function drip(res: ServerResponse, count: number): Promise<void> {
  for (let i = 0; i < count && !res.destroyed; i++) {
    res.write("x");
    await sleep(50);
  }
  res.end();
}

function send(res: ServerResponse, headers: Record<string, string>, body: string | Buffer, status = 200): void {
  res.writeHead(status, headers).end(body);
}

const ROUTES: Record<string, (res: ServerResponse, query: URLSearchParams, entry: Served) => void> = {
  "/page": (res) => {
    send(res, { "content-type": "text/plain" }, "hello from docs.test");
  },
  "/typed": (res, query) => {
    const type = query.get("type") ?? "";
    send(res, { "content-type": type }, type === "image/png" ? Buffer.from("89504e470d0a1a0a", "hex") : "typed");
  },
  "/untyped": (res) => {
    send(res, {}, "no type");
  },
  "/encoded": (res, query) => {
    send(res, { "content-type": "text/plain", "content-encoding": query.get("encoding") ?? "" }, "pretend");
  },
  "/missing": (res) => {
    send(res, { "content-type": "text/html" }, "<h1>not here</h1>", 404);
  },
  "/invalid-utf8": (res) => {
    send(res, { "content-type": "text/plain; charset=utf-8" }, Buffer.from([0x61, 0xff, 0xfe, 0x62]));
  },
  "/redirect": (res) => {
    send(res, { location: "/page", "content-type": "text/plain" }, "moved to /page", 302);
  },
  "/bytes": (res, query, entry) => {
    res.writeHead(200, { "content-type": "text/plain" });
    void stream(res, Number(query.get("n")), entry);
  },
  "/drip": (res, query) => {
    res.writeHead(200, { "content-type": "text/plain" });
    void drip(res, Number(query.get("n")));
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "reviewbot-fetch-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-subj",
      "/CN=docs.test",
      "-addext",
      "subjectAltName=DNS:docs.test",
      "-days",
      "1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  cert = readFileSync(join(dir, "cert.pem"));
  server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://docs.test");
    const entry: Served = { path: req.url ?? "", headers: req.headers };
    served.push(entry);
    res.on("close", () => {
      entry.finished = res.writableFinished;
    });
    const route =
      ROUTES[url.pathname] ??
      ((response) => {
        send(response, { "content-type": "text/plain" }, "unknown path", 404);
      });
    route(res, url.searchParams, entry);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject).listen(443, SERVER_IP, resolve);
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  served.length = 0;
  lookups.length = 0;
  answers = [];
});

/** The test's DNS: the queued answers in turn, then `docs.test`'s own address. */
const lookup: FetchAllowlistedOptions["lookup"] = (host) => {
  lookups.push(host);
  const addresses = answers.shift() ?? [SERVER_IP];
  return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
};

/** Trusts the test's certificate and allows the server's loopback address, and nothing else. */
const OPTIONS: FetchAllowlistedOptions = {
  hosts: ["docs.test"],
  lookup,
  isAllowedAddress: (ip) => ip === SERVER_IP,
};

const fetchDocs = (url: string, options: Partial<FetchAllowlistedOptions> = {}) => fetchAllowlisted(url, { ...OPTIONS, ca: cert, ...options });

const denied = (reason: string) => ({ code: "POLICY_DENIED", retryable: false, message: `fetch_url: ${reason}` });
const failed = (message: RegExp) => ({ code: "FETCH_FAILED", retryable: true, message: expect.stringMatching(message) as string });

describe("fetchAllowlisted: the positive control", () => {
  it("fetches an allowlisted page over HTTPS from the vetted address, with one lookup", async () => {
    await expect(fetchDocs("https://docs.test/page?x=1#section")).resolves.toEqual({
      url: "https://docs.test/page?x=1",
      status: 200,
      contentType: "text/plain",
      text: "hello from docs.test",
      truncated: false,
    });
    expect(lookups).toEqual(["docs.test"]);
    expect(served.map((entry) => entry.path)).toEqual(["/page?x=1"]);
  });

  it("sends accept, user-agent and the host name, and no cookie or credential", async () => {
    await fetchDocs("https://docs.test/page");
    const headers = served[0]?.headers ?? {};
    expect(Object.keys(headers).sort()).toEqual(["accept", "connection", "host", "user-agent"]);
    expect(headers).toMatchObject({ host: "docs.test", "user-agent": "reviewbot" });
  });

  it("returns an error page with its status, and decodes bad UTF-8 as replacement characters", async () => {
    await expect(fetchDocs("https://docs.test/missing")).resolves.toMatchObject({ status: 404, contentType: "text/html", text: "<h1>not here</h1>" });
    await expect(fetchDocs("https://docs.test/invalid-utf8")).resolves.toMatchObject({ text: "a\uFFFD\uFFFDb" });
  });
});

describe("fetchAllowlisted: the URL (refused before any lookup or connection)", () => {
  it.each([
    ["https://evil.test/", "host `evil.test` is not on the operator's allowlist"],
    ["https://docs.test.evil/", "host `docs.test.evil` is not on the operator's allowlist"],
    ["https://sub.docs.test/page", "host `sub.docs.test` is not on the operator's allowlist"],
    ["https://evil.test/?docs.test", "host `evil.test` is not on the operator's allowlist"],
    ["https://docs.test@evil.test/", "a URL with a user name or password cannot be fetched"],
    ["https://evil.test@docs.test/", "a URL with a user name or password cannot be fetched"],
    ["http://docs.test/page", "only https: URLs can be fetched, not http:"],
    ["https://docs.test:8443/page", "only the default port 443 can be fetched, not 8443"],
    ["https://127.0.0.1/page", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    [`https://${SERVER_IP}/page`, `\`${SERVER_IP}\` is an IP address; give a host name from the operator's allowlist`],
    ["https://[::1]/page", "`[::1]` is an IP address; give a host name from the operator's allowlist"],
    ["https://2130706433/page", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    ["https://0x7f.1/page", "`127.0.0.1` is an IP address; give a host name from the operator's allowlist"],
    [`https://docs.test/${"a".repeat(2048)}`, "the URL is longer than 2048 characters"],
  ])("refuses %s", async (url, reason) => {
    // The IP literals are allowlisted too: being an address is refused on its own.
    const hosts = ["docs.test", "127.0.0.1", SERVER_IP, "[::1]", "::1"];
    await expect(fetchDocs(url, { hosts })).rejects.toMatchObject(denied(reason));
    expect(lookups).toEqual([]);
    expect(served).toEqual([]);
  });

  it.each(["https://docs.test:443/page", "https://DOCS.TEST./page"])("accepts %s (the same host and port, spelled differently)", async (url) => {
    await expect(fetchDocs(url)).resolves.toMatchObject({ status: 200, text: "hello from docs.test" });
  });
});

describe("fetchAllowlisted: the addresses a name resolves to", () => {
  it.each([["127.0.0.1"], ["10.1.2.3"], ["169.254.169.254"], ["::1"], ["::ffff:127.0.0.1"], [SERVER_IP]])(
    "refuses a name resolving to %s under the default address policy",
    async (address) => {
      answers = [[address]];
      await expect(fetchDocs("https://docs.test/page", { isAllowedAddress: undefined })).rejects.toMatchObject(
        denied("`docs.test` resolves to an address that is not public"),
      );
      expect(served).toEqual([]);
    },
  );

  it.each([[["8.8.8.8", "10.0.0.1"]], [["10.0.0.1", "8.8.8.8"]], [["2606:4700:4700::1111", "::1"]]])(
    "refuses a name resolving to public and private addresses %j under the default policy",
    async (addresses) => {
      answers = [addresses];
      await expect(fetchDocs("https://docs.test/page", { isAllowedAddress: undefined })).rejects.toMatchObject(
        denied("`docs.test` resolves to an address that is not public"),
      );
    },
  );

  it("checks every address: one refused among allowed ones refuses the host", async () => {
    answers = [[SERVER_IP, "127.0.0.2"], [SERVER_IP]];
    await expect(fetchDocs("https://docs.test/page")).rejects.toMatchObject(denied("`docs.test` resolves to an address that is not public"));
    expect(served).toEqual([]);
    await expect(fetchDocs("https://docs.test/page")).resolves.toMatchObject({ status: 200 });
  });

  it("connects to the vetted address: a DNS answer that changes (rebinding) is never consulted", async () => {
    answers = [[SERVER_IP], ["10.0.0.1"]];
    await expect(fetchDocs("https://docs.test/page")).resolves.toMatchObject({ status: 200 });
    expect(lookups).toHaveLength(1);
    // The control: the second answer does reach the policy, on the next fetch's one lookup.
    await expect(fetchDocs("https://docs.test/page")).rejects.toMatchObject(denied("`docs.test` resolves to an address that is not public"));
    expect(lookups).toHaveLength(2);
    expect(served).toHaveLength(1);
  });

  it("reports a failed lookup as a retryable fetch failure, without an address", async () => {
    const nxdomain = () => Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND docs.test"), { code: "ENOTFOUND" }));
    await expect(fetchDocs("https://docs.test/page", { lookup: nxdomain })).rejects.toMatchObject(
      failed(/^fetch_url: `docs\.test` could not be resolved \(ENOTFOUND\)$/),
    );
    await expect(fetchDocs("https://docs.test/page", { lookup: () => Promise.resolve([]) })).rejects.toMatchObject(failed(/has no address$/));
  });
});

describe("fetchAllowlisted: TLS", () => {
  it("refuses a certificate it does not trust", async () => {
    await expect(fetchDocs("https://docs.test/page", { ca: undefined })).rejects.toMatchObject(failed(/SELF_SIGNED/));
    expect(served).toEqual([]);
  });

  it("checks the certificate against the host name, not the address it connected to", async () => {
    await expect(fetchDocs("https://other.test/page", { hosts: ["other.test"] })).rejects.toMatchObject(failed(/ERR_TLS_CERT_ALTNAME_INVALID/));
    expect(lookups).toEqual(["other.test"]);
    expect(served).toEqual([]);
  });
});

describe("fetchAllowlisted: the response", () => {
  it("refuses a redirect without following it or naming its target", async () => {
    const refusal = fetchDocs("https://docs.test/redirect");
    await expect(refusal).rejects.toMatchObject(denied("`https://docs.test/redirect` answered 302, a redirect; redirects are not followed"));
    expect(served.map((entry) => entry.path)).toEqual(["/redirect"]);
  });

  it.each(["text/plain", "text/html; charset=utf-8", "text/markdown", "application/json", "application/xml", "application/vnd.api+json", "image/svg+xml"])(
    "reads %s",
    async (type) => {
      await expect(fetchDocs(`https://docs.test/typed?type=${encodeURIComponent(type)}`)).resolves.toMatchObject({
        contentType: type.split(";")[0],
        text: "typed",
      });
    },
  );

  it.each(["image/png", "application/octet-stream", "application/javascript", "application/pdf"])("refuses %s, naming the type", async (type) => {
    const url = `https://docs.test/typed?type=${encodeURIComponent(type)}`;
    await expect(fetchDocs(url)).rejects.toMatchObject(denied(`\`${url}\` is ${type}, not text`));
  });

  it("refuses a body without a content type", async () => {
    await expect(fetchDocs("https://docs.test/untyped")).rejects.toMatchObject(denied("`https://docs.test/untyped` is of no content type, not text"));
  });

  it("refuses a compressed body it did not ask for, and reads an identity one", async () => {
    await expect(fetchDocs("https://docs.test/encoded?encoding=gzip")).rejects.toMatchObject(
      denied("`https://docs.test/encoded?encoding=gzip` came with content-encoding gzip, which is not decoded"),
    );
    await expect(fetchDocs("https://docs.test/encoded?encoding=identity")).resolves.toMatchObject({ text: "pretend" });
  });

  it("cuts a 10 MB body at 512 KiB and hangs up: the rest is never read", async () => {
    const page = await fetchDocs(`https://docs.test/bytes?n=${TEN_MB}`);
    expect(page).toMatchObject({ truncated: true });
    expect(page.text).toHaveLength(512 * 1024);
    await expect.poll(() => served[0]?.finished).toBe(false);
    expect(served[0]?.bytesWritten).toBeLessThan(TEN_MB);
  });

  it.each([
    [1000, false],
    [1001, true],
  ])("with maxBytes 1000, a body of %i bytes is truncated: %s", async (bytes, truncated) => {
    const page = await fetchDocs(`https://docs.test/bytes?n=${bytes}`, { maxBytes: 1000 });
    expect({ length: page.text.length, truncated: page.truncated }).toEqual({ length: 1000, truncated });
  });

  it("bounds the whole exchange: a server that drips a byte every 50 ms runs into the deadline", async () => {
    const started = Date.now();
    await expect(fetchDocs("https://docs.test/drip?n=200", { timeoutMs: 1000 })).rejects.toMatchObject(
      failed(/^fetch_url: `docs\.test` did not answer within 1000 ms$/),
    );
    expect(Date.now() - started).toBeLessThan(5000);
    // The control: a drip that ends inside the deadline is read whole.
    await expect(fetchDocs("https://docs.test/drip?n=3", { timeoutMs: 5000 })).resolves.toMatchObject({ text: "xxx" });
  });

  it("bounds DNS by the same deadline", async () => {
    const silent = () => new Promise<never>(() => undefined);
    await expect(fetchDocs("https://docs.test/page", { lookup: silent, timeoutMs: 300 })).rejects.toMatchObject(failed(/did not answer within 300 ms$/));
  });

  it("rejects with the caller's reason when the caller aborts", async () => {
    const reason = new Error("review cancelled");
    await expect(fetchDocs("https://docs.test/drip?n=200", { signal: AbortSignal.timeout(200), timeoutMs: 5000 })).rejects.toMatchObject({
      name: "TimeoutError",
    });
    const controller = new AbortController();
    controller.abort(reason);
    await expect(fetchDocs("https://docs.test/page", { signal: controller.signal })).rejects.toBe(reason);
  });
});
