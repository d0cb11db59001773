#!/usr/bin/env node
// Headless-Chromium check of an operation page's "Try it" form (docs/try-it.md).
//
//   node tests/browser/try.js --out DIR URL PARAM VALUE EXPECTED_STATUS EXPECTED_BODY_TEXT
//
// Opens URL (an operation page of a documentation whose owner turned Try it on) light on a desktop
// and dark on a phone, opens the form, types VALUE into the parameter PARAM, presses Send and
// checks: the answer's status line names EXPECTED_STATUS, its body holds EXPECTED_BODY_TEXT, its
// headers are listed, the answer is text (no element inside the body), axe-core (WCAG 2.0/2.1 A and
// AA) finds nothing with the form and the answer open. A screenshot of the answered form goes to
// DIR. Fails on a CSP report, a page error or a failed request, as check.js does.
"use strict";

const fs = require("fs");
const path = require("path");

const repo = path.resolve(__dirname, "..", "..");
const modules = process.env.SPECPRESS_NODE_MODULES || path.join(repo, ".tools", "npm", "node_modules");
const { chromium } = require(path.join(modules, "playwright-core"));
const axeSource = fs.readFileSync(require.resolve(path.join(modules, "axe-core", "axe.min.js")), "utf8");

const VIEWS = [
  { name: "light-desktop", scheme: "light", width: 1400, height: 900 },
  { name: "dark-phone", scheme: "dark", width: 390, height: 844, mobile: true },
];

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

async function checkView(browser, args, view, problems) {
  const context = await browser.newContext({
    colorScheme: view.scheme,
    viewport: { width: view.width, height: view.height },
    deviceScaleFactor: 1,
    isMobile: !!view.mobile,
    hasTouch: !!view.mobile,
  });
  const page = await context.newPage();
  const where = `${args.url} [${view.name}]`;
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(`${where}: CSP: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`${where}: page error: ${err.message}`));
  page.on("requestfailed", (req) => problems.push(`${where}: request failed: ${req.url()}`));
  await page.goto(args.url, { waitUntil: "load", timeout: 30000 });
  const panel = page.locator("details.try");
  if ((await panel.count()) !== 1) {
    problems.push(`${where}: expected one Try it panel, found ${await panel.count()}`);
    await context.close();
    return;
  }
  await panel.locator("summary").click();
  const field = panel.locator(`input[name=param][data-name="${args.param}"]`);
  await field.fill(args.value);
  await panel.locator("button[type=submit]").click();
  const status = panel.locator(".try-status");
  await status.waitFor({ state: "visible", timeout: 30000 });
  await page.waitForFunction(
    () => {
      const s = document.querySelector("details.try .try-status");
      return s && s.textContent.length > 0;
    },
    null,
    { timeout: 30000 },
  );
  const line = await status.textContent();
  if (!line.includes(args.status)) problems.push(`${where}: status line "${line}" does not name ${args.status}`);
  const body = panel.locator(".try-body");
  const text = await body.textContent();
  if (!text.includes(args.bodyText)) problems.push(`${where}: body "${text.slice(0, 200)}" lacks "${args.bodyText}"`);
  if ((await body.locator("*").count()) !== 0) problems.push(`${where}: the answer's body holds elements`);
  if ((await panel.locator(".try-headers dt").count()) === 0) problems.push(`${where}: no answer header listed`);
  for (const v of await axe(page)) problems.push(`${where}: axe: ${v}`);
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(args.out, `try--${view.name}.png`) });
  await context.close();
}

async function main() {
  const argv = process.argv.slice(2);
  let out = ".";
  if (argv[0] === "--out") {
    out = argv[1];
    argv.splice(0, 2);
  }
  const [url, param, value, status, bodyText] = argv;
  if (!bodyText) {
    console.error("usage: try.js --out DIR URL PARAM VALUE EXPECTED_STATUS EXPECTED_BODY_TEXT");
    process.exit(2);
  }
  const args = { out, url, param, value, status, bodyText };
  const browser = await chromium.launch({
    executablePath: process.env.SPECPRESS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const problems = [];
  try {
    for (const view of VIEWS) await checkView(browser, args, view, problems);
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.log(`${problems.length} problem(s):`);
    for (const p of problems) console.log(`  - ${p}`);
    process.exit(1);
  }
  console.log("try it: ok");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
