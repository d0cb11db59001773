#!/usr/bin/env node
// Headless-Chromium check of "since your last visit".
//
//   node tests/browser/since.js --out DIR --state FILE first URL
//   node tests/browser/since.js --out DIR --state FILE return URL FROM_VERSION CHANGED_HREF NEW_HREF
//
// `first`: a reader's first visit of URL (a page of a branch's latest release): nothing is shown (the
// #since box stays hidden, no mark in the navigation), the release is remembered in localStorage; the
// browser's storage is saved to FILE.
//
// `return`: the same reader (storage from FILE) comes back after a deploy: the banner is shown and
// names the release last seen, links the compare page from FROM_VERSION, the navigation marks
// CHANGED_HREF "Changed" and NEW_HREF "New"; axe-core (WCAG 2.0/2.1 A and AA) finds nothing with the
// banner shown, light on a desktop and dark on a phone; a reload in the same tab shows it again;
// "Dismiss" hides it and the marks; the next visit shows nothing. Screenshots go to DIR. Fails on a
// CSP report, a page error or a failed request as check.js does.
"use strict";

const fs = require("fs");
const path = require("path");

const repo = path.resolve(__dirname, "..", "..");
const modules = process.env.SPECPRESS_NODE_MODULES || path.join(repo, ".tools", "npm", "node_modules");
const { chromium } = require(path.join(modules, "playwright-core"));
const axeSource = fs.readFileSync(require.resolve(path.join(modules, "axe-core", "axe.min.js")), "utf8");

function fail(problems, message) {
  problems.push(message);
}

async function axe(page) {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help} :: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  });
}

function watch(page, where, problems) {
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) fail(problems, `${where}: CSP: ${msg.text()}`);
  });
  page.on("pageerror", (err) => fail(problems, `${where}: page error: ${err.message}`));
  page.on("requestfailed", (req) => fail(problems, `${where}: request failed: ${req.url()}`));
}

const shown = () => {
  const box = document.getElementById("since");
  return {
    present: !!box,
    hidden: !box || box.hidden,
    text: box ? box.textContent : "",
    link: box && box.querySelector("a") ? box.querySelector("a").getAttribute("href") : null,
    marks: [...document.querySelectorAll(".side a .mk")].map((m) => [m.parentNode.getAttribute("href"), m.textContent, m.className]),
  };
};

async function first(browser, args, problems) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  watch(page, `${args.url} [first]`, problems);
  await page.goto(args.url, { waitUntil: "load", timeout: 30000 });
  await page.waitForTimeout(300);
  const s = await page.evaluate(shown);
  if (!s.present) fail(problems, "first visit: no #since box on a page of the latest release");
  if (!s.hidden || s.marks.length) fail(problems, `first visit shows something: ${JSON.stringify(s)}`);
  const seen = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("specpress-seen:")));
  if (seen.length !== 1) fail(problems, `first visit remembered ${JSON.stringify(seen)}`);
  await page.screenshot({ path: path.join(args.out, "since-first--light-desktop.png") });
  await context.storageState({ path: args.state });
  await context.close();
}

async function returning(browser, args, problems) {
  const views = [
    { name: "light-desktop", scheme: "light", width: 1280, height: 900 },
    { name: "dark-phone", scheme: "dark", width: 390, height: 844, mobile: true },
  ];
  for (const view of views) {
    const context = await browser.newContext({
      storageState: args.state,
      colorScheme: view.scheme,
      viewport: { width: view.width, height: view.height },
      deviceScaleFactor: 1,
      isMobile: !!view.mobile,
      hasTouch: !!view.mobile,
    });
    const page = await context.newPage();
    const where = `${args.url} [return ${view.name}]`;
    watch(page, where, problems);
    await page.goto(args.url, { waitUntil: "load", timeout: 30000 });
    await page.waitForSelector("#since:not([hidden])", { timeout: 30000 });
    let s = await page.evaluate(shown);
    if (!/^Since your last visit \(1\.0\.0\): \d+ changes? \(\d+ breaking\)\. See what changed/.test(s.text)) {
      fail(problems, `${where}: banner text ${JSON.stringify(s.text)}`);
    }
    const compare = `/compare?from=${args.from}&to=`;
    if (!s.link || !s.link.includes(compare)) fail(problems, `${where}: banner link ${s.link}`);
    const mark = (href) => s.marks.find((m) => m[0] === href);
    const changed = mark(args.changed);
    const added = mark(args.added);
    if (!changed || changed[1] !== "Changed") fail(problems, `${where}: no Changed mark on ${args.changed}: ${JSON.stringify(s.marks)}`);
    if (!added || added[1] !== "New") fail(problems, `${where}: no New mark on ${args.added}: ${JSON.stringify(s.marks)}`);
    if (view.mobile) {
      // The navigation is below the content on a phone: the banner's screenshot is the top of the page.
      await page.screenshot({ path: path.join(args.out, `since-return--${view.name}.png`) });
    } else {
      await page.screenshot({ path: path.join(args.out, `since-return--${view.name}.png`), fullPage: true });
    }
    for (const v of await axe(page)) fail(problems, `${where}: axe ${v}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width > view.width + 1) fail(problems, `${where}: horizontal overflow (${width}px)`);
    if (view.mobile) {
      await context.close();
      continue;
    }
    // The same tab: still shown on the next page view; dismissed: gone, and gone on the next view.
    await page.reload({ waitUntil: "load" });
    await page.waitForSelector("#since:not([hidden])", { timeout: 30000 });
    await page.click("#since button");
    s = await page.evaluate(shown);
    if (!s.hidden || s.marks.length) fail(problems, `${where}: dismissed but still shown: ${JSON.stringify(s)}`);
    await page.reload({ waitUntil: "load" });
    await page.waitForTimeout(500);
    s = await page.evaluate(shown);
    if (!s.hidden || s.marks.length) fail(problems, `${where}: shown again after dismissing: ${JSON.stringify(s)}`);
    await context.close();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const args = { out: null, state: null };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") args.out = argv[++i];
    else if (argv[i] === "--state") args.state = argv[++i];
    else rest.push(argv[i]);
  }
  [args.step, args.url, args.from, args.changed, args.added] = rest;
  if (!args.out || !args.state || !args.url || (args.step === "return" && !args.added)) {
    console.error("usage: since.js --out DIR --state FILE first URL | return URL FROM CHANGED_HREF NEW_HREF");
    process.exit(2);
  }
  fs.mkdirSync(args.out, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.SPECPRESS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const problems = [];
  try {
    if (args.step === "first") await first(browser, args, problems);
    else await returning(browser, args, problems);
  } catch (e) {
    problems.push(`${args.step}: ${e.message}`);
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.error(`${problems.length} problem(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
  }
  console.log(`since ${args.step}: ok; screenshots in ${args.out}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
