/**
 * How long `Retry-After` asks to wait: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or
 * as an HTTP date (a past date: no wait). Null when neither is there or readable.
 */
export function retryAfterMs(headers: Headers, now: number): number | null {
  const milliseconds = headers.get("retry-after-ms")?.trim() ?? "";
  if (/^\d{1,9}(?:\.\d+)?$/.test(milliseconds)) return Math.ceil(Number(milliseconds));
  const value = headers.get("retry-after")?.trim() ?? "";
  if (/^\d{1,9}$/.test(value)) return Number(value) * 1000;
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
