#!/usr/bin/env node
// Headless-Chromium sign-in through an organization's OpenID provider (docs/auth.md), the whole way as a reader
// goes: the sign-in page offers "Sign in with <provider>", the provider's own login and consent pages are filled
// and confirmed, and the browser comes back through /sign-in/oidc/callback to the page it asked for.
//
//   node tests/browser/sso.js --out DIR --login LOGIN --name NAME SIGN_IN_URL
//
// SIGN_IN_URL is the sign-in page with its `next`. Prints one JSON line: {url, status, heading, offered, session}
// (the final page's URL, HTTP status and first heading; whether the sign-in page offered the provider; the
// session cookie's value, if one was set). axe-core (WCAG 2.0/2.1 A and AA) must find nothing on the sign-in page,
// and no page of ours may break its Content-Security-Policy. Screenshots: DIR/NAME--sign-in.png, DIR/NAME--after.png.
"use strict";

const fs = require("fs");
const path = require("path");

const repo = path.resolve(__dirname, "..", "..");
const modules = process.env.SPECPRESS_NODE_MODULES || path.join(repo, ".tools", "npm", "node_modules");
const { chromium } = require(path.join(modules, "playwright-core"));
const axeSource = fs.readFileSync(require.resolve(path.join(modules, "axe-core", "axe.min.js")), "utf8");

async function axe(page) {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.help}`);
  });
}

function parse(argv) {
  const args = { out: null, login: null, name: "sso", url: null };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--out") args.out = argv[++i];
    else if (argv[i] === "--login") args.login = argv[++i];
    else if (argv[i] === "--name") args.name = argv[++i];
    else args.url = argv[i];
  }
  return args;
}

async function run(browser, args, problems) {
  const ours = new URL(args.url).origin;
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on("console", (msg) => {
    if (page.url().startsWith(ours) && /Content Security Policy|Refused to/i.test(msg.text())) {
      problems.push(`CSP: ${msg.text()}`);
    }
  });
  await page.goto(args.url);
  await page.screenshot({ path: path.join(args.out, `${args.name}--sign-in.png`), fullPage: true });
  for (const v of await axe(page)) problems.push(`sign-in page: axe ${v}`);
  const button = page.getByRole("link", { name: /^Sign in with / });
  const offered = (await button.count()) === 1;
  if (!offered) return { url: page.url(), status: 0, heading: "", offered, session: null };

  let last = null;
  page.on("response", (r) => {
    if (r.request().isNavigationRequest() && r.url().startsWith(ours)) last = r;
  });
  await Promise.all([page.waitForURL((u) => !u.href.startsWith(ours)), button.click()]);
  // The provider's pages: its login form, then its consent; each submitted until the browser is back with us.
  for (let step = 0; step < 6 && !page.url().startsWith(ours); step += 1) {
    await page.waitForLoadState("domcontentloaded");
    const login = page.locator("input[name=login]");
    if (await login.count()) {
      await login.fill(args.login);
      await page.locator("input[name=password]").fill("any password");
    }
    const submit = page.locator("button[type=submit]").first();
    await Promise.all([page.waitForNavigation(), submit.click()]);
  }
  await page.waitForLoadState("domcontentloaded");
  await page.screenshot({ path: path.join(args.out, `${args.name}--after.png`), fullPage: true });
  const heading = await page.evaluate(() => (document.querySelector("h1") || {}).textContent || "");
  const cookie = (await context.cookies(ours)).find((c) => c.name === "specpress_session");
  return {
    url: page.url(),
    status: last ? last.status() : 0,
    heading: heading.trim(),
    offered,
    session: cookie ? cookie.value : null,
  };
}

async function main() {
  const args = parse(process.argv.slice(2));
  if (!args.out || !args.login || !args.url) {
    console.error("usage: node tests/browser/sso.js --out DIR --login LOGIN [--name NAME] SIGN_IN_URL");
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
  let result = null;
  try {
    result = await run(browser, args, problems);
  } catch (e) {
    problems.push(e.message);
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.error(`${problems.length} problem(s):`);
    for (const p of problems) console.error(`  - ${p}`);
    process.exit(1);
  }
  console.log(JSON.stringify(result));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
