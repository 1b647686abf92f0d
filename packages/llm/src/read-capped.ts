/**
 * The body's text, up to `maxBytes` (`complete` false past it: the rest is not read, the stream is
 * cancelled). A declared `Content-Length` past the cap is refused before reading.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<{ text: string; complete: boolean }> {
  const body = response.body;
  if (body === null) return { text: "", complete: true };
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await body.cancel().catch(() => undefined);
    return { text: "", complete: false };
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString("utf8"), complete: true };
    const room = maxBytes - total;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).toString("utf8"), complete: false };
    }
    chunks.push(value);
    total += value.byteLength;
  }
}
