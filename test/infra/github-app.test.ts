import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "infra", "github-app");

async function manifestFile(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(DIR, "manifest.json"), "utf8")) as Record<string, unknown>;
}

describe("GitHub App manifest", () => {
  it("asks for the minimal permissions and the events the api handles", async () => {
    const manifest = await manifestFile();
    expect(manifest.default_permissions).toEqual({ checks: "write", contents: "read", pull_requests: "write", metadata: "read" });
    expect(manifest.default_events).toEqual(["pull_request", "issue_comment", "check_run", "pull_request_review_comment"]);
    expect(manifest.public).toBe(false);
    expect(manifest.hook_attributes).toEqual({ url: expect.stringMatching(/^https:\/\/[^/]+\/api\/github\/webhooks$/) as unknown, active: true });
  });

  it("is the manifest register.html posts", async () => {
    const html = await readFile(join(DIR, "register.html"), "utf8");
    const embedded = /<script type="application\/json" id="manifest">([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(embedded).toBeDefined();
    expect(JSON.parse(embedded ?? "null")).toEqual(await manifestFile());
    expect(html).toContain('action="https://github.com/settings/apps/new"');
  });
});
