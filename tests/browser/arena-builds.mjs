// The arena's whole path in Chromium: sign up, upload bots from the form, and watch each
// version built in the sandbox and checked by the arena's worker, its state changing on the
// page by itself (server-sent events): a C++ bot and a Python file become active, a Java player
// folder handed in as a .zip too; a bot that does not compile shows its build log, one that
// crashes in its check shows the reason and the check's replay.
//
// Run by tests/arena_web.rs (`tests/browser/run arena-builds.mjs`), which serves the arena
// with its worker (ARENA_URL) and writes the bots' files into ARENA_FILES.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { browser, screenshot } from "./lib/harness.mjs";

const origin = process.env.ARENA_URL;
const files = process.env.ARENA_FILES;
let chrome;
let page;

/** A build and a check in the sandbox: minutes at most, whatever the machine. */
const SETTLES = 600000;

before(async () => {
  assert.ok(origin && files, "ARENA_URL and ARENA_FILES are set by tests/arena_web.rs");
  chrome = await browser();
  page = chrome.page;
  await page.goto(`${origin}/`);
  await page.waitForSelector("#signup-form");
  await page.fill("#signup-name", "eve");
  await page.fill("#signup-password", "correct horse");
  await page.click("#signup-form button[type=submit]");
  await page.waitForSelector("#upload-form");
});

after(async () => {
  if (chrome) await chrome.close();
});

async function upload(bot, file) {
  await page.fill("#upload-bot", bot);
  await page.selectOption("#upload-game", "quoridor");
  await page.setInputFiles("#upload-file", path.join(files, file));
  await page.click("#upload-form button[type=submit]");
  await page.waitForSelector("#upload-form .form-ok");
  assert.match(await page.textContent("#upload-form .form-ok"), new RegExp(`version 1 of ${bot} is queued`));
}

/** Waits until version 1 of `bot` is in one of the final states; answers which. */
async function settled(bot) {
  const row = `section.bot[data-name="${bot}"] tr.version[data-number="1"]`;
  await page.waitForSelector(
    ["active", "build_failed", "check_failed"].map((s) => `${row}[data-state="${s}"]`).join(", "), { timeout: SETTLES });
  return page.getAttribute(row, "data-state");
}

const row = (bot) => `section.bot[data-name="${bot}"] tr.version[data-number="1"]`;

test("every upload is queued at once", async () => {
  for (const [bot, file] of [["runner", "runner.cpp"], ["walker", "walker.py"], ["javabot", "javabot.zip"],
    ["broken", "broken.cpp"], ["crasher", "crasher.py"]]) {
    await upload(bot, file);
  }
});

test("a C++ bot from source is built, checked and active", async () => {
  assert.equal(await settled("runner"), "active", await page.textContent(row("runner")));
  assert.match(await page.textContent(row("runner")), /c\+\+/);
  await screenshot(page, "arena-builds-cpp");
});

test("a Python file and a Java player folder in a zip are active too", async () => {
  assert.equal(await settled("walker"), "active", await page.textContent(row("walker")));
  assert.equal(await settled("javabot"), "active", await page.textContent(row("javabot")));
});

test("a bot that does not compile shows its build log", async () => {
  assert.equal(await settled("broken"), "build_failed");
  assert.match(await page.textContent(row("broken")), /error/);
});

test("a bot that crashes in its check shows why, with the check's replay", async () => {
  assert.equal(await settled("crasher"), "check_failed");
  const text = await page.textContent(row("crasher"));
  assert.ok(text.length > 20, text);
  await page.waitForSelector(`${row("crasher")} ul.checks a`);
  await screenshot(page, "arena-builds-all");
  await page.click(`${row("crasher")} ul.checks a`);
  await page.waitForSelector("#now .tick-no, .problem");
  assert.equal(await page.$(".problem"), null, "the check replay is shown");
});
