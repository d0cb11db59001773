#!/usr/bin/env node
// Headless-Chromium check of documentation pages.
//
//   node tests/browser/check.js --out DIR [--max-height PX] [--expect STATUS] URL...
//
// `--expect STATUS` before a URL says that page is answered with STATUS (an error page: 404, 400);
// every other page must answer 200.
//
// For each URL: opens it with JavaScript disabled (light, desktop) and enabled (light and dark
// color scheme, desktop 1280 px and phone 390 px wide), takes a full-page screenshot of each
// (cut at --max-height px, default 6000) into DIR, and runs axe-core with the WCAG 2.0/2.1 A and
// AA rules on each JavaScript-enabled view. Also fails on a Content-Security-Policy report, a
// page error, a failed request, or a page without a <main> and links. Exits non-zero listing
// every violation.
//
// Modules: playwright-core and axe-core from SPECPRESS_NODE_MODULES, else
// <repo>/.tools/npm/node_modules (scripts/install-tools.sh installs them). Browser:
// SPECPRESS_CHROMIUM, else /usr/bin/chromium.
"use strict";

const fs = require("fs");
const path = require("path");

const repo = path.resolve(__dirname, "..", "..");
const modules = process.env.SPECPRESS_NODE_MODULES || path.join(repo, ".tools", "npm", "node_modules");
const { chromium } = require(path.join(modules, "playwright-core"));
const axeSource = fs.readFileSync(require.resolve(path.join(modules, "axe-core", "axe.min.js")), "utf8");

function parseArgs(argv) {
  const out = { dir: null, urls: [], expected: {}, maxHeight: 6000 };
  let expect = 200;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") out.dir = argv[++i];
    else if (argv[i] === "--max-height") out.maxHeight = Number(argv[++i]);
    else if (argv[i] === "--expect") expect = Number(argv[++i]);
    else {
      out.urls.push(argv[i]);
      out.expected[argv[i]] = expect;
      expect = 200;
    }
  }
  if (!out.dir || out.urls.length === 0) {
    console.error("usage: check.js --out DIR [--max-height PX] [--expect STATUS] URL...");
    process.exit(2);
  }
  return out;
}

function fileName(url, view) {
  const u = new URL(url);
  const base = ((u.pathname.replace(/^\/+|\/+$/g, "") || "root") + (u.search ? "_" + u.search.slice(1, 60) : ""))
    .replace(/[^a-zA-Z0-9._-]+/g, "_")
    .slice(-120);
  return `${base}--${view}.png`;
}

const VIEWS = [
  { name: "nojs-light-desktop", js: false, scheme: "light", width: 1280, height: 900, axe: false },
  { name: "light-desktop", js: true, scheme: "light", width: 1280, height: 900, axe: true },
  { name: "dark-desktop", js: true, scheme: "dark", width: 1280, height: 900, axe: true },
  { name: "light-phone", js: true, scheme: "light", width: 390, height: 844, axe: true, mobile: true },
  { name: "dark-phone", js: true, scheme: "dark", width: 390, height: 844, axe: true, mobile: true },
];

async function checkView(browser, url, view, opts, problems) {
  const context = await browser.newContext({
    javaScriptEnabled: view.js,
    colorScheme: view.scheme,
    viewport: { width: view.width, height: view.height },
    deviceScaleFactor: 1,
    isMobile: !!view.mobile,
    hasTouch: !!view.mobile,
  });
  const page = await context.newPage();
  const where = `${url} [${view.name}]`;
  page.on("console", (msg) => {
    const text = msg.text();
    if (/Content Security Policy|Refused to/i.test(text)) problems.push(`${where}: CSP: ${text}`);
  });
  page.on("pageerror", (err) => problems.push(`${where}: page error: ${err.message}`));
  page.on("requestfailed", (req) => problems.push(`${where}: request failed: ${req.url()} ${req.failure() && req.failure().errorText}`));
  const response = await page.goto(url, { waitUntil: "load", timeout: 30000 });
  const expected = opts.expected[url] || 200;
  if (!response || response.status() !== expected) {
    problems.push(`${where}: status ${response && response.status()}`);
    await context.close();
    return;
  }
  const shape = await page.evaluate(() => ({
    main: document.querySelectorAll("main").length,
    links: document.querySelectorAll("a[href]").length,
    h1: document.querySelectorAll("h1").length,
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  }));
  if (shape.main !== 1 || shape.h1 !== 1 || shape.links === 0) {
    problems.push(`${where}: page shape ${JSON.stringify(shape)}`);
  }
  if (shape.width > view.width + 1) {
    problems.push(`${where}: horizontal overflow (${shape.width}px wide in a ${view.width}px viewport)`);
  }
  const height = Math.min(shape.height, opts.maxHeight);
  await page.screenshot({
    path: path.join(opts.dir, fileName(url, view.name)),
    fullPage: true,
    clip: { x: 0, y: 0, width: view.width, height },
  });
  if (view.axe) {
    await page.evaluate(axeSource);
    const result = await page.evaluate(async () => {
      // eslint-disable-next-line no-undef
      const r = await axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
        resultTypes: ["violations"],
      });
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "").replace(/\s+/g, " ")),
        count: v.nodes.length,
      }));
    });
    for (const v of result) {
      problems.push(`${where}: axe ${v.id} (${v.impact}, ${v.count} nodes): ${v.help}\n      ${v.nodes.join("\n      ")}`);
    }
  }
  await context.close();
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  fs.mkdirSync(opts.dir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.SPECPRESS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // No --user-data-dir: Playwright starts every launch on a fresh temporary profile of its
      // own (and refuses the flag).
    ],
  });
  const problems = [];
  let views = 0;
  try {
    for (const url of opts.urls) {
      for (const view of VIEWS) {
        try {
          await checkView(browser, url, view, opts, problems);
        } catch (e) {
          problems.push(`${url} [${view.name}]: ${e.message}`);
        }
        views++;
      }
    }
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.error(`${problems.length} problem(s) in ${opts.urls.length} page(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
  }
  console.log(`${opts.urls.length} page(s), ${views} views: no axe violation, no CSP report, no page error; screenshots in ${opts.dir}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
