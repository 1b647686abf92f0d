import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Logger } from "@reviewbot/core/logger";
import { HELPER_IMAGES, IMAGES_ARCHIVE, IMAGES_MANIFEST, ImagesManifest } from "./helper-images-manifest.js";
import { firstLine } from "./load-helper-images.js";

const execFileAsync = promisify(execFile);
const run = (argv: readonly string[]): Promise<string> =>
  execFileAsync(argv[0] ?? "", argv.slice(1), { maxBuffer: 16 * 1024 * 1024, encoding: "utf8" }).then((out) => out.stdout);

/** How this process runs a command as root: directly, through passwordless sudo, or not at all. */
async function rootPrefix(): Promise<readonly string[] | undefined> {
  if (process.getuid?.() === 0) return [];
  return run(["sudo", "-n", "true"]).then(
    () => ["sudo", "-n"],
    () => undefined,
  );
}

/**
 * Builds the helper images with the action's own `infra/images/build.sh` (root: as GitHub-hosted
 * runners allow, through passwordless sudo; Podman, runc and debootstrap installed from apt when
 * missing), saves them into `cacheDir` as one archive and writes its manifest. Returns why it could
 * not, or null.
 */
export async function buildHelperImages(cacheDir: string, recipesDir: string, logger: Logger): Promise<string | null> {
  const root = await rootPrefix();
  if (root === undefined) return "this runner cannot build them (not root, no passwordless sudo)";
  const podman = [...root, "env", `CONTAINERS_CONF=${join(recipesDir, "..", "podman", "containers.conf")}`, "podman"];
  try {
    const missing = await run(["sh", "-c", "for t in podman runc debootstrap; do command -v $t >/dev/null || echo $t; done"]);
    if (missing.trim() !== "") {
      logger.info({ missing: missing.trim().split("\n") }, "installing what the image build needs");
      await run([...root, "apt-get", "update", "-q"]);
      await run([...root, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", "podman", "runc", "debootstrap"]);
    }
    logger.info({}, "building the helper images (infra/images/build.sh)");
    await run([...root, join(recipesDir, "build.sh")]);
    await mkdir(cacheDir, { recursive: true });
    await run([
      ...podman,
      "save",
      "--quiet",
      "--multi-image-archive",
      "--format",
      "docker-archive",
      "--output",
      join(cacheDir, IMAGES_ARCHIVE),
      ...HELPER_IMAGES,
    ]);
    const ids = await Promise.all(
      HELPER_IMAGES.map(async (image): Promise<[string, string]> => [
        image,
        `sha256:${(await run([...podman, "image", "inspect", "--format", "{{.Id}}", image])).trim()}`,
      ]),
    );
    const manifest = ImagesManifest.parse({ version: 1, images: Object.fromEntries(ids) });
    await writeFile(join(cacheDir, IMAGES_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return null;
  } catch (err) {
    return `building them failed: ${firstLine(err)}`;
  }
}
