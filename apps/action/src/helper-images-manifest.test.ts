import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IMAGES_MANIFEST, readImagesManifest } from "./helper-images-manifest.js";

const id = (digit: string): string => `sha256:${digit.repeat(64)}`;
const images = { "localhost/reviewbot/base:latest": id("a"), "localhost/reviewbot/python:latest": id("b"), "localhost/reviewbot/node:latest": id("c") };

async function cacheWith(text: string | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "reviewbot-image-cache-"));
  if (text !== undefined) await writeFile(join(dir, IMAGES_MANIFEST), text);
  return dir;
}

describe("readImagesManifest", () => {
  it("reads each helper image's id; no manifest is undefined", async () => {
    expect(await readImagesManifest(await cacheWith(JSON.stringify({ version: 1, images })))).toEqual({ version: 1, images });
    expect(await readImagesManifest(await cacheWith(undefined))).toBeUndefined();
  });

  it.each([
    ["a missing image", JSON.stringify({ version: 1, images: { ...images, "localhost/reviewbot/node:latest": undefined } })],
    ["another image", JSON.stringify({ version: 1, images: { ...images, "docker.io/library/alpine:latest": id("d") } })],
    ["an id that is not a digest", JSON.stringify({ version: 1, images: { ...images, "localhost/reviewbot/base:latest": "latest" } })],
    ["not JSON", "{"],
    ["more than 64 KiB", JSON.stringify({ version: 1, images, pad: "x".repeat(70_000) })],
  ])("refuses %s", async (_, text) => {
    await expect(readImagesManifest(await cacheWith(text))).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
