#!/usr/bin/env node
// Screenshots of operation pages for docs/screenshots (tests/browser.rs runs it when
// SPECPRESS_SCREENSHOTS is set):
//
//   node shots.js --out DIR NAME=URL...
//
// For each NAME=URL: NAME-desktop.png (1400x900, light, JavaScript on, the viewport only, so the
// two panes show as a reader first sees them) and NAME-phone-dark.png (390 px wide, dark, 1800 px
// from the "Request samples" heading on, where a phone shows the samples). Modules: playwright-core from SPECPRESS_NODE_MODULES; browser:
// SPECPRESS_CHROMIUM, else /usr/bin/chromium.
"use strict";

const path = require("path");

const modules = process.env.SPECPRESS_NODE_MODULES;
const { chromium } = require(path.join(modules, "playwright-core"));

const VIEWS = [
  { suffix: "desktop", scheme: "light", width: 1400, height: 900, full: false },
  { suffix: "phone-dark", scheme: "dark", width: 390, height: 844, full: true, mobile: true },
];

async function main() {
  const args = process.argv.slice(2);
  const out = args[args.indexOf("--out") + 1];
  const pages = args.filter((a, i) => a.includes("=") && args[i - 1] !== "--out");
  const browser = await chromium.launch({
    executablePath: process.env.SPECPRESS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  for (const spec of pages) {
    const eq = spec.indexOf("=");
    const name = spec.slice(0, eq);
    const url = spec.slice(eq + 1);
    for (const v of VIEWS) {
      const context = await browser.newContext({
        colorScheme: v.scheme,
        viewport: { width: v.width, height: v.height },
        deviceScaleFactor: 1,
        isMobile: !!v.mobile,
        hasTouch: !!v.mobile,
      });
      const page = await context.newPage();
      await page.goto(url, { waitUntil: "load", timeout: 30000 });
      const file = path.join(out, `${name}-${v.suffix}.png`);
      if (v.full) {
        // On a phone the samples follow the reference: from the "Request samples" heading on.
        const box = await page.evaluate(() => {
          const h = document.getElementById("sample");
          const top = h ? h.getBoundingClientRect().top + window.scrollY - 16 : 0;
          return { top: Math.max(0, top), height: document.documentElement.scrollHeight };
        });
        const height = Math.min(box.height - box.top, 1800);
        await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: box.top, width: v.width, height } });
      } else {
        await page.screenshot({ path: file });
      }
      await context.close();
    }
  }
  await browser.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
