/**
 * Headless Chromium for the report tests: Debian's /usr/bin/chromium driven by playwright-core
 * (never a downloaded browser), a fresh profile, and no network: every request that is not a
 * file: URL is aborted and recorded, so a test can assert that the page asked for nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.ROCELAB_CHROMIUM ?? '/usr/bin/chromium';

export interface OpenedPage {
  page: Page;
  /** console.error messages and uncaught page errors. */
  errors: string[];
  /** Non-file requests the page tried (all aborted). */
  blocked: string[];
}

export interface Browser {
  open(fileUrl: string): Promise<OpenedPage>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  // Fail loudly: CI installs chromium (.ci/run); a silent skip would hide a broken report.
  if (!existsSync(CHROMIUM))
    throw new Error(
      `chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set ROCELAB_CHROMIUM)`,
    );
  const profile = mkdtempSync(join(tmpdir(), 'rocelab-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    offline: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    async open(fileUrl) {
      const page = await context.newPage();
      const errors: string[] = [];
      const blocked: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file:')) return route.continue();
        blocked.push(url);
        return route.abort();
      });
      await page.goto(fileUrl, { waitUntil: 'load' });
      return { page, errors, blocked };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
