// Bundles the action into dist-action/ at the repository root, the files action.yml runs: one ESM
// file per entry, every dependency inside, nothing read from node_modules at run time. esbuild's
// output depends only on its inputs (no timestamps, stable order), so `--check` builds again in
// memory and fails when the committed files differ (CI runs it with `lint`).
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const outdir = join(root, "dist-action");
const check = process.argv.includes("--check");

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    index: "apps/action/src/main.ts",
    // The findings parser's child process: packages/review starts `./parse-child.js` next to itself.
    "parse-child": "packages/review/dist/findings/parse-child.js",
  },
  outdir,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // CommonJS dependencies use `require`, `__dirname` and `__filename`: give the ESM bundle its own.
  banner: {
    js: [
      'import { createRequire as __rbCreateRequire } from "node:module";',
      'import { fileURLToPath as __rbFileURLToPath } from "node:url";',
      'import { dirname as __rbDirname } from "node:path";',
      "const require = __rbCreateRequire(import.meta.url);",
      "const __filename = __rbFileURLToPath(import.meta.url);",
      "const __dirname = __rbDirname(__filename);",
    ].join(" "),
  },
  // ssh2 (dockerode's, for ssh:// hosts we never use) tries optional native addons and falls back without them.
  external: ["*.node", "cpu-features"],
  legalComments: "eof",
  charset: "utf8",
  write: false,
  logLevel: "warning",
});

const stale = [];
if (!check) await mkdir(outdir, { recursive: true });
for (const file of result.outputFiles) {
  const name = relative(root, file.path);
  if (!check) {
    await writeFile(file.path, file.contents);
    continue;
  }
  const committed = await readFile(file.path).catch(() => Buffer.alloc(0));
  if (!committed.equals(Buffer.from(file.contents))) stale.push(name);
}
if (stale.length > 0) {
  process.stderr.write(
    `the committed bundle differs from a fresh build: ${stale.join(", ")}\nrun \`pnpm --filter @reviewbot/action run bundle\` and commit the result\n`,
  );
  process.exit(1);
}
