import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (installed by `npm test`), headless, with nothing reaching beyond this machine:
 * without the background-networking flags Chromium keeps trying the internet at start.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
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
}
