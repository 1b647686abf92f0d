import { describe, expect, it } from "vitest";
import { resolveHelperImage } from "./helper-image.js";
import { parseOperatorPolicy } from "./operator-policy.js";

const operator = parseOperatorPolicy({
  images: { base: "localhost/reviewbot/base:latest", python: "localhost/reviewbot/python:3.12" },
  defaultImage: "base",
});
const ALLOWED = "allowed: base, python";

describe("resolveHelperImage", () => {
  it.each([
    [undefined, { name: "base", reference: "localhost/reviewbot/base:latest" }],
    ["python", { name: "python", reference: "localhost/reviewbot/python:3.12" }],
  ])("resolves %j from the allowlist", (requested, expected) => {
    expect(resolveHelperImage(requested, operator, "helpers[0].image")).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["ruby", `"ruby" is not in the operator's image allowlist (${ALLOWED})`],
    ["constructor", `"constructor" is not in the operator's image allowlist (${ALLOWED})`],
    ["hasownproperty", `"hasownproperty" is not in the operator's image allowlist (${ALLOWED})`],
    ["__proto__", `"__proto__" is not an image name, /^[a-z][a-z0-9_-]{0,63}$/ (${ALLOWED})`],
    ["Python", `"Python" is not an image name, /^[a-z][a-z0-9_-]{0,63}$/ (${ALLOWED})`],
    ["", `"" is not an image name, /^[a-z][a-z0-9_-]{0,63}$/ (${ALLOWED})`],
    ["python --privileged", `"python --privileged" is not an image name, /^[a-z][a-z0-9_-]{0,63}$/ (${ALLOWED})`],
    ["docker.io/library/python:3", `"docker.io/library/python:3" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
    [
      "localhost/reviewbot/base:latest",
      `"localhost/reviewbot/base:latest" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`,
    ],
    ["python:3.12", `"python:3.12" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
    ["python@sha256:abc", `"python@sha256:abc" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
    ["/var/lib/images/x", `"/var/lib/images/x" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
    ["../base", `"../base" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
    ["https://evil.test/x", `"https://evil.test/x" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
    ["base.tar", `"base.tar" is an image reference or path; give a name from the operator's allowlist (${ALLOWED})`],
  ])("refuses %j", (requested, reason) => {
    expect(resolveHelperImage(requested, operator, "helpers[0].image")).toEqual({
      ok: false,
      errors: [{ path: "helpers[0].image", message: `helpers[0].image: ${reason}` }],
    });
  });
});
