#!/usr/bin/env node
// Headless-Chromium check of the search field's suggestions as one types.
//
//   node tests/browser/suggest.js --out DIR URL QUERY EXPECTED_TEXT EXPECTED_PATH
//
// Opens URL (a page with a search field) light on a desktop and dark on a phone, types QUERY
// into the header's search field key by key, and checks: a listbox opens under the field with
// the combobox's ARIA state (aria-expanded, aria-controls), its first suggestion contains
// EXPECTED_TEXT, the last one leads to the full results page, the list stays inside the viewport, axe-core (WCAG 2.0/2.1 A and AA)
// finds nothing with the list open, ArrowDown then Enter goes to EXPECTED_PATH, and Escape
// closes the list. A screenshot of the open list goes to DIR. Fails on a CSP report, a page
// error or a failed request as check.js does.
"use strict";

const fs = require("fs");
const path = require("path");

const repo = path.resolve(__dirname, "..", "..");
const modules = process.env.SPECPRESS_NODE_MODULES || path.join(repo, ".tools", "npm", "node_modules");
const { chromium } = require(path.join(modules, "playwright-core"));
const axeSource = fs.readFileSync(require.resolve(path.join(modules, "axe-core", "axe.min.js")), "utf8");

const VIEWS = [
  { name: "light-desktop", scheme: "light", width: 1280, height: 800 },
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
  page.on("requestfailed", (req) => {
    // A suggestion request overtaken by the next keystroke may be cancelled by the browser.
    if (!/search\.json/.test(req.url())) problems.push(`${where}: request failed: ${req.url()}`);
  });
  await page.goto(args.url, { waitUntil: "load", timeout: 30000 });
  const field = page.locator("#q");
  await field.click();
  await field.pressSequentially(args.query, { delay: 40 });
  const list = page.locator("#q ~ ul[role=listbox]");
  await list.waitFor({ state: "visible", timeout: 30000 });
  await page.waitForFunction(
    (expected) => {
      const first = document.querySelector("#q ~ ul[role=listbox] [role=option]");
      return first && first.textContent.includes(expected);
    },
    args.expected,
    { timeout: 30000 },
  );
  const state = await page.evaluate(() => {
    const input = document.querySelector("#q");
    const ul = document.getElementById(input.getAttribute("aria-controls"));
    const options = ul ? [...ul.querySelectorAll("[role=option]")] : [];
    return {
      role: input.getAttribute("role"),
      expanded: input.getAttribute("aria-expanded"),
      options: options.length,
      last: options.length ? options[options.length - 1].getAttribute("data-href") : null,
      status: (document.querySelector("#q ~ [role=status]") || {}).textContent || "",
      box: ul ? ul.getBoundingClientRect().toJSON() : null,
      width: document.documentElement.clientWidth,
    };
  });
  if (!state.box || state.box.left < 0 || state.box.right > state.width) {
    problems.push(`${where}: the list should stay inside the viewport: ${JSON.stringify(state)}`);
  }
  if (state.role !== "combobox" || state.expanded !== "true" || state.options < 2) {
    problems.push(`${where}: combobox state ${JSON.stringify(state)}`);
  }
  if (!state.last || !/\/search\?q=/.test(state.last)) {
    problems.push(`${where}: the last suggestion should lead to the results page: ${JSON.stringify(state)}`);
  }
  if (!/result/.test(state.status)) {
    problems.push(`${where}: the live region should say how many results: ${JSON.stringify(state)}`);
  }
  await page.screenshot({ path: path.join(args.dir, `suggest--${view.name}.png`) });
  for (const v of await axe(page)) problems.push(`${where}: axe ${v}`);
  await field.press("Escape");
  if ((await page.locator("#q").getAttribute("aria-expanded")) !== "false" || (await list.isVisible())) {
    problems.push(`${where}: Escape should close the list`);
  }
  await field.press("Space");
  await field.press("Backspace");
  await list.waitFor({ state: "visible", timeout: 30000 });
  await field.press("ArrowDown");
  const active = await page.evaluate(() => document.querySelector("#q").getAttribute("aria-activedescendant"));
  if (!active) problems.push(`${where}: ArrowDown should choose a suggestion`);
  await Promise.all([page.waitForURL((u) => u.pathname === args.path, { timeout: 30000 }), field.press("Enter")]);
  await context.close();
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] !== "--out" || argv.length !== 6) {
    console.error("usage: suggest.js --out DIR URL QUERY EXPECTED_TEXT EXPECTED_PATH");
    process.exit(2);
  }
  const args = { dir: argv[1], url: argv[2], query: argv[3], expected: argv[4], path: argv[5] };
  fs.mkdirSync(args.dir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.SPECPRESS_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const problems = [];
  try {
    for (const view of VIEWS) {
      try {
        await checkView(browser, args, view, problems);
      } catch (e) {
        problems.push(`${args.url} [${view.name}]: ${e.message}`);
      }
    }
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.error(`${problems.length} problem(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
  }
  console.log(`suggestions for "${args.query}" in ${VIEWS.length} views: listbox, axe, keyboard and Escape checked; screenshots in ${args.dir}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
