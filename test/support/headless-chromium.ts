import { access } from "node:fs/promises";
import { chromium, type Browser } from "playwright-core";

/** Debian's `chromium` package (scripts/setup.sh installs it); playwright-core downloads no browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export interface HeadlessChromiumOptions {
  /**
   * Extra host names Chromium resolves to 127.0.0.1 (`--host-resolver-rules`), so a test can
   * serve a page from a foreign origin, e.g. `evil.test`, without touching DNS or /etc/hosts.
   */
  readonly loopbackHosts?: readonly string[];
}

/**
 * Launches Debian's Chromium headless through playwright-core, with a fresh temporary profile
 * (playwright makes and removes it). Background networking, component updates, sync and QUIC
 * are off: without them Chromium keeps calling Google hosts, which a closed network refuses
 * slowly. `--no-sandbox` because tests run as root, where Chromium's own sandbox cannot start.
 */
export async function launchHeadlessChromium(options: HeadlessChromiumOptions = {}): Promise<Browser> {
  await access(CHROMIUM_PATH).catch((err: unknown) => {
    throw new Error(`${CHROMIUM_PATH} is missing: run scripts/setup.sh (Debian package chromium)`, { cause: err });
  });
  const hosts = options.loopbackHosts ?? [];
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 60_000,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...(hosts.length > 0 ? [`--host-resolver-rules=${hosts.map((host) => `MAP ${host} 127.0.0.1`).join(", ")}`] : []),
    ],
  });
}
