import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { HELPER_IMAGES, IMAGES_ARCHIVE, type ImagesManifest } from "./helper-images-manifest.js";

const execFileAsync = promisify(execFile);

/**
 * Loads the cache's archive into the Docker daemon at `socket` (`docker load`) and checks what it
 * loaded: only the helper images, each tagged with the id the manifest records. Returns why the
 * images cannot be used, or null when they can. The check catches a stale, partial or mixed cache;
 * a writer of the cache can forge the manifest too (docs/github-action.md, "What is cached").
 */
export async function loadHelperImages(cacheDir: string, manifest: ImagesManifest, socket: string): Promise<string | null> {
  const docker = (args: readonly string[]): Promise<string> =>
    execFileAsync("docker", ["--host", `unix://${socket}`, ...args], { maxBuffer: 1024 * 1024, encoding: "utf8" }).then((out) => out.stdout);
  let loaded: string;
  try {
    loaded = await docker(["load", "--input", join(cacheDir, IMAGES_ARCHIVE)]);
  } catch (err) {
    return `docker load of the image cache failed: ${firstLine(err)}`;
  }
  const names = loaded.split("\n").flatMap((line) => /^Loaded image(?: ID)?: (.+)$/.exec(line.trim())?.[1] ?? []);
  const foreign = names.filter((name) => !(HELPER_IMAGES as readonly string[]).includes(name));
  // Names from the archive: a few, shortened, in the one line the run prints.
  const shown = foreign.slice(0, 3).map((name) => JSON.stringify(name.slice(0, 100)));
  if (foreign.length > 0) return `the image cache holds ${String(foreign.length)} image(s) that are not helper images: ${shown.join(", ")}`;
  for (const image of HELPER_IMAGES) {
    const id = await docker(["image", "inspect", "--format", "{{.Id}}", image]).then(
      (out) => out.trim(),
      () => "(missing)",
    );
    if (id !== manifest.images[image]) return `${image} from the image cache is ${id}, its manifest says ${manifest.images[image]}`;
  }
  return null;
}

export function firstLine(err: unknown): string {
  const stderr = (err as { stderr?: unknown }).stderr;
  const text = typeof stderr === "string" && stderr.trim() !== "" ? stderr : String(err);
  return text.trim().split("\n").at(-1) ?? "";
}
