import { open } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";

/** The helper images the operator policy names (infra/images/build.sh builds them, load-docker.sh loads them). */
export const HELPER_IMAGES = ["localhost/reviewbot/base:latest", "localhost/reviewbot/python:latest", "localhost/reviewbot/node:latest"] as const;
/** In the image cache: the images as `podman save -m` writes them, and what they are. */
export const IMAGES_ARCHIVE = "reviewbot-images.tar";
export const IMAGES_MANIFEST = "reviewbot-images.json";
const MANIFEST_MAX_BYTES = 64 * 1024;

/** An image's id: the digest of its config, which names every layer by digest; equal in Podman and Docker. */
export const ImageId = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256:<64 hex>");
/** Each helper image's id, recorded when the archive was saved. Read from a cache other workflows can write: checked. */
export const ImagesManifest = z.object({ version: z.literal(1), images: z.record(z.enum(HELPER_IMAGES), ImageId) }).strict();
export type ImagesManifest = z.infer<typeof ImagesManifest>;

/**
 * The cache's manifest, or undefined when it has none. Read up to 64 KiB (a larger file is refused).
 *
 * @throws AppError `CONFIG_INVALID` for a manifest that is too large, not JSON or not the shape above.
 */
export async function readImagesManifest(cacheDir: string): Promise<ImagesManifest | undefined> {
  let file;
  try {
    file = await open(join(cacheDir, IMAGES_MANIFEST), "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const buffer = Buffer.alloc(MANIFEST_MAX_BYTES + 1);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MANIFEST_MAX_BYTES) throw new AppError("CONFIG_INVALID", `${IMAGES_MANIFEST} is larger than ${String(MANIFEST_MAX_BYTES)} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(buffer.subarray(0, bytesRead).toString("utf8"));
    } catch {
      throw new AppError("CONFIG_INVALID", `${IMAGES_MANIFEST} is not JSON`);
    }
    return parseOrThrow(ImagesManifest, json, "CONFIG_INVALID");
  } finally {
    await file.close();
  }
}
