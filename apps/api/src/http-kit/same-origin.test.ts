import { describe, expect, it } from "vitest";
import { isSameOriginRequest } from "./same-origin.js";

const host = "reviewbot.example:3000";

describe("isSameOriginRequest", () => {
  it.each([
    ["GET without origin", "GET", {}, true],
    ["HEAD without origin", "HEAD", {}, true],
    ["OPTIONS without origin", "OPTIONS", {}, true],
    ["POST without origin", "POST", { host }, false],
    ["PUT without origin", "PUT", { host }, false],
    ["DELETE without origin", "DELETE", { host }, false],
    ["POST from the same origin", "POST", { host, origin: `http://${host}` }, true],
    ["POST from the same origin over https", "POST", { host, origin: `https://${host}` }, true],
    ["POST with upper-case host", "POST", { host: host.toUpperCase(), origin: `http://${host}` }, true],
    ["POST from another port", "POST", { host, origin: "http://reviewbot.example:3001" }, false],
    ["POST from another host", "POST", { host, origin: "https://evil.example" }, false],
    ["POST from a look-alike host", "POST", { host, origin: `http://${host}.evil.example` }, false],
    ["POST with origin null", "POST", { host, origin: "null" }, false],
    ["POST with a garbage origin", "POST", { host, origin: "::::" }, false],
    ["POST with a non-http origin", "POST", { host, origin: `file://${host}` }, false],
    ["POST with Sec-Fetch-Site same-origin", "POST", { host, "sec-fetch-site": "same-origin" }, true],
    ["POST with Sec-Fetch-Site same-site", "POST", { host, "sec-fetch-site": "same-site", origin: `http://${host}` }, false],
    ["POST with Sec-Fetch-Site cross-site", "POST", { host, "sec-fetch-site": "cross-site", origin: `http://${host}` }, false],
    ["PUT with Sec-Fetch-Site none", "PUT", { host, "sec-fetch-site": "none" }, false],
  ])("%s", (_name, method, headers, expected) => {
    expect(isSameOriginRequest(method, headers)).toBe(expected);
  });
});
