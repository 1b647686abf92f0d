import { describe, expect, it } from "vitest";
import { hasBasicCredentials } from "./basic-auth.js";

const expected = { user: "admin", password: "correct horse battery" };
const basic = (text: string): string => `Basic ${Buffer.from(text).toString("base64")}`;

describe("hasBasicCredentials", () => {
  it.each([
    ["the right credentials", basic("admin:correct horse battery"), true],
    ["lower-case scheme", basic("admin:correct horse battery").replace("Basic", "basic"), true],
    ["no header", undefined, false],
    ["a wrong password", basic("admin:correct horse batterY"), false],
    ["a wrong user", basic("root:correct horse battery"), false],
    ["an empty password", basic("admin:"), false],
    ["no colon", basic("admincorrect horse battery"), false],
    ["a bearer token", "Bearer correct horse battery", false],
    ["a password with a colon in it (split at the first)", basic("admin:correct:horse"), false],
    ["garbage base64", "Basic !!!", false],
  ])("%s", (_name, authorization, result) => {
    expect(hasBasicCredentials(authorization === undefined ? {} : { authorization }, expected)).toBe(result);
  });
});
