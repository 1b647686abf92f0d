import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import type { z } from "zod";
import { CaseManifest, SuiteManifest } from "./suite-manifest.js";

const MANIFEST_BYTES = 256 * 1024;
const PATCH_BYTES = 8 * 1024 * 1024;
/** A case's whole directory (base tree, patch, notes): a suite is small files, not a repository. */
const CASE_BYTES = 32 * 1024 * 1024;

export interface SuiteCase {
  readonly dir: string;
  readonly manifest: CaseManifest;
  /** sha256 over every file of the case directory (paths and bytes): its results' cache key. */
  readonly contentHash: string;
}

export interface Suite {
  readonly manifest: SuiteManifest;
  readonly cases: readonly SuiteCase[];
}

/**
 * Reads `<dir>/suite.json` and each listed `cases/<id>/case.json`, zod-parsed and size-capped; a
 * case's `id` must be its directory's name, a tree case must have `pr.patch`. Symbolic links in a
 * case directory are refused (a suite is data copied from elsewhere and must not reach outside).
 */
export async function readSuite(dir: string): Promise<Suite> {
  const manifest = await readJson(join(dir, "suite.json"), SuiteManifest);
  if (new Set(manifest.cases).size !== manifest.cases.length) throw new AppError("CONFIG_INVALID", "suite.json: a case is listed twice");
  const cases = [];
  for (const id of manifest.cases) {
    const caseDir = join(dir, "cases", id);
    const caseManifest = await readJson(join(caseDir, "case.json"), CaseManifest);
    if (caseManifest.id !== id) throw new AppError("CONFIG_INVALID", `cases/${id}/case.json: its id is not its directory's name`);
    const files = await listFiles(caseDir);
    if (caseManifest.source.kind === "tree" && !files.some((file) => file.path === "pr.patch")) {
      throw new AppError("CONFIG_INVALID", `cases/${id}: a tree case needs pr.patch`);
    }
    const patch = files.find((file) => file.path === "pr.patch");
    if (patch !== undefined && patch.size > PATCH_BYTES) throw new AppError("CONFIG_INVALID", `cases/${id}/pr.patch: larger than ${PATCH_BYTES} bytes`);
    cases.push({ dir: caseDir, manifest: caseManifest, contentHash: await hashFiles(caseDir, files) });
  }
  return { manifest, cases };
}

async function readJson<T>(path: string, schema: z.ZodType<T>): Promise<T> {
  const info = await lstat(path).catch(() => null);
  if (info === null || !info.isFile()) throw new AppError("CONFIG_INVALID", `${path}: not found (or not a plain file)`);
  if (info.size > MANIFEST_BYTES) throw new AppError("CONFIG_INVALID", `${path}: larger than ${MANIFEST_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch {
    throw new AppError("CONFIG_INVALID", `${path}: not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError("CONFIG_INVALID", `${path}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

interface CaseFile {
  readonly path: string;
  readonly size: number;
}

async function listFiles(caseDir: string): Promise<CaseFile[]> {
  const entries = await readdir(caseDir, { recursive: true, withFileTypes: true });
  const files: CaseFile[] = [];
  let total = 0;
  for (const entry of entries) {
    const path = relative(caseDir, join(entry.parentPath, entry.name));
    if (entry.isSymbolicLink()) throw new AppError("CONFIG_INVALID", `${caseDir}/${path}: a symbolic link`);
    if (!entry.isFile()) continue;
    const { size } = await lstat(join(caseDir, path));
    total += size;
    if (total > CASE_BYTES) throw new AppError("CONFIG_INVALID", `${caseDir}: larger than ${CASE_BYTES} bytes`);
    files.push({ path, size });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function hashFiles(caseDir: string, files: readonly CaseFile[]): Promise<string> {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file.path}\0${file.size}\0`);
    hash.update(await readFile(join(caseDir, file.path)));
  }
  return hash.digest("hex");
}
