import type { IncomingHttpHeaders } from "node:http";

/** The credential of an `Authorization: Bearer <credential>` header, or undefined. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer ([\x21-\x7e]{1,1024})$/i.exec(headers.authorization ?? "");
  return match?.[1];
}
