/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character, appending `marker`
 * (counted within the limit) when it cut. GitHub's limits (summary 65,535, annotation message
 * 64 KiB) are enforced on the encoded body, so counting UTF-16 units would under-count.
 */
export function truncateUtf8(text: string, maxBytes: number, marker = "…"): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength(marker, "utf8");
  if (budget <= 0) return "";
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character, "utf8");
    if (bytes + size > budget) break;
    bytes += size;
    end += character.length;
  }
  return text.slice(0, end) + marker;
}
