#!/usr/bin/env node
// Headless-Chromium check of embed mode (docs/embed.md): a documentation page asked with ?embed=1, framed by
// the owner's site, shows in the frame; framed by any other site, Chromium refuses it (frame-ancestors).
//
//   node tests/browser/embed.js --out DIR ALLOWED_EMBEDDER_URL REFUSED_EMBEDDER_URL
//
// Each embedder URL is a page holding one <iframe> of the documentation page. From the allowed one, the frame
// must hold the page's main content, without the site's header and sidebar, and a link inside must keep
// embed=1; from the refused one, the frame must hold none of the page. A screenshot of each goes to DIR
// (embed--allowed.png, embed--refused.png).
"use strict";

const path = require("path");

const repo = path.resolve(__dirname, "..", "..");
const modules = process.env.SPECPRESS_NODE_MODULES || path.join(repo, ".tools", "npm", "node_modules");
const { chromium } = require(path.join(modules, "playwright-core"));

// What the framed page holds, from inside the frame (null when the frame shows no page of ours).
async function framed(page) {
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) return null;
  try {
    return await frame.evaluate(() => ({
      main: !!document.querySelector("main#main"),
      header: !!document.querySelector("header.top"),
      sidebar: !!document.querySelector("nav.side"),
      link: (document.querySelector("main a[href^='/']") || {}).href || "",
      url: location.href,
    }));
  } catch (e) {
    return null;
  }
}

async function visit(browser, url, name, out) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const refusals = [];
  page.on("console", (msg) => {
    if (/frame-ancestors|Refused to frame|Refused to display/i.test(msg.text())) refusals.push(msg.text());
  });
  await page.goto(url, { waitUntil: "load", timeout: 30000 });
  await page.waitForTimeout(500);
  const inside = await framed(page);
  await page.screenshot({ path: path.join(out, `embed--${name}.png`) });
  await context.close();
  return { inside, refusals };
}

async function main() {
  const argv = process.argv.slice(2);
  let out = ".";
  if (argv[0] === "--out") {
    out = argv[1];
    argv.splice(0, 2);
  }
  const [allowed, refused] = argv;
  if (!refused) {
    console.error("usage: embed.js --out DIR ALLOWED_EMBEDDER_URL REFUSED_EMBEDDER_URL");
    process.exit(2);
  }
  const browser = await chromium.launch({
    executablePath: process.env.SPECPRESS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const problems = [];
  try {
    const ok = await visit(browser, allowed, "allowed", out);
    if (!ok.inside || !ok.inside.main) {
      problems.push(`${allowed}: the frame does not show the page (${JSON.stringify(ok)})`);
    } else {
      if (ok.inside.header || ok.inside.sidebar) problems.push(`${allowed}: the framed page shows the site's header or sidebar`);
      if (!/[?&]embed=1/.test(ok.inside.link)) problems.push(`${allowed}: a link inside the frame lost embed=1: ${ok.inside.link}`);
    }
    if (ok.refusals.length) problems.push(`${allowed}: refused: ${ok.refusals.join(" | ")}`);
    const no = await visit(browser, refused, "refused", out);
    if (no.inside && no.inside.main) problems.push(`${refused}: the frame shows the page to an origin not listed`);
    console.log(`allowed: ${JSON.stringify(ok.inside)}; refused: ${JSON.stringify(no.inside)} ${no.refusals.join(" | ")}`);
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.log(`${problems.length} problem(s):`);
    for (const p of problems) console.log(`  - ${p}`);
    process.exit(1);
  }
  console.log("embed: ok");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
