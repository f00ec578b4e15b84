import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, checkShot } from './browser';

// Kept apart from browser.ts, which web/scripts/screenshots.ts loads outside vitest.

/**
 * axe on the page as it is, at 1280 and 375 px in light and dark, each kept as a check shot named
 * `<name>-<width>-<scheme>`; the page is left at 1280 px, light.
 */
export async function expectAxeCleanEverywhere(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 375, height: 812 },
    ]) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme });
      await expect
        .poll(() => page.evaluate(() => document.documentElement.dataset.mantineColorScheme))
        .toBe(colorScheme);
      const at = { name, colorScheme, width: viewport.width };
      expect({ ...at, violations: await axeViolations(page) }).toEqual({ ...at, violations: [] });
      await checkShot(page, `${name}-${viewport.width}-${colorScheme}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
}
