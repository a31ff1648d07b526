// The arena's pages in Chromium, against an arena that tests/arena_web.rs serves (ARENA_URL)
// on a store it prepared and drives: signing up and in, the upload form, each version's state
// as it changes (server-sent events, no reload), a failed check's reason and replay, the bot's
// page and the admin page. Run by tests/arena_web.rs only (`tests/browser/run arena.mjs`).
//
// The Rust side builds and checks versions by writing the store as a worker would, when the
// page has uploaded them: nothing here waits on the machine's speed beyond that.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { browser, screenshot, tempDir } from "./lib/harness.mjs";

const origin = process.env.ARENA_URL;
let chrome;
let page;

before(async () => {
  assert.ok(origin, "ARENA_URL names the arena under test (tests/arena_web.rs sets it)");
  chrome = await browser();
  page = chrome.page;
});

after(async () => {
  if (chrome) await chrome.close();
});

/** The state shown for version `number` of the bot `name` on the page. */
async function waitForState(name, number, state, timeout = 60000) {
  await page.waitForSelector(
    `section.bot[data-name="${name}"] tr.version[data-number="${number}"][data-state="${state}"]`, { timeout });
}

test("signing up shows an empty list of bots and the upload form", async () => {
  await page.goto(`${origin}/`);
  await page.waitForSelector("#signup-form");
  await page.fill("#signup-name", "eve");
  await page.fill("#signup-password", "correct horse");
  await page.click("#signup-form button[type=submit]");
  await page.waitForSelector("#my-bots");
  assert.equal(await page.textContent("#signed-in-as"), "eve");
  assert.match(await page.textContent("#bot-list"), /no bot yet/);
  assert.match(await page.textContent("#quota"), /0 of \d+ uploads/);
  await screenshot(page, "arena-signed-up");
});

test("a wrong password is refused with the server's words", async () => {
  await page.click("#signout");
  await page.waitForSelector("#signin-form");
  await page.fill("#signin-name", "eve");
  await page.fill("#signin-password", "wrong horse");
  await page.click("#signin-form button[type=submit]");
  await page.waitForSelector("#signin-form .form-error");
  assert.match(await page.textContent("#signin-form .form-error"), /wrong name or password/);
  await page.fill("#signin-password", "correct horse");
  await page.click("#signin-form button[type=submit]");
  await page.waitForSelector("#upload-form");
});

test("an upload from the form is queued, then followed to active without a reload", async () => {
  const dir = tempDir("arena-upload");
  const file = path.join(dir, "runner.cpp");
  fs.writeFileSync(file, "#include <cstdio>\nint main() { std::puts(\"hi\"); }\n");
  await page.fill("#upload-bot", "runner");
  await page.selectOption("#upload-game", "quoridor");
  await page.setInputFiles("#upload-file", file);
  await page.click("#upload-form button[type=submit]");
  await page.waitForSelector("#upload-form .form-ok");
  assert.match(await page.textContent("#upload-form .form-ok"), /version 1 of runner is queued/);
  await page.waitForSelector('section.bot[data-name="runner"]');
  // The Rust side builds and checks it now; the page follows by itself.
  await waitForState("runner", 1, "active");
  assert.match(await page.textContent('section.bot[data-name="runner"]'), /v1 plays/);
  await screenshot(page, "arena-active");
});

test("a bad file is refused at once with the reason", async () => {
  const dir = tempDir("arena-bad");
  const file = path.join(dir, "runner.cobol");
  fs.writeFileSync(file, "IDENTIFICATION DIVISION.\n");
  await page.fill("#upload-bot", "runner");
  await page.setInputFiles("#upload-file", file);
  await page.click("#upload-form button[type=submit]");
  await page.waitForSelector("#upload-form .form-error");
  assert.match(await page.textContent("#upload-form .form-error"), /no language/);
});

test("a failed build shows its log, a failed check its reason and replay", async () => {
  await page.click("#signout");
  await page.waitForSelector("#signin-form");
  await page.fill("#signin-name", "ada");
  await page.fill("#signin-password", "correct horse");
  await page.click("#signin-form button[type=submit]");
  await waitForState("b1", 1, "check_failed");
  await waitForState("b1", 2, "build_failed");
  const bot = 'section.bot[data-name="b1"]';
  assert.match(await page.textContent(`${bot} tr[data-number="2"]`), /expected ';' before '}'/);
  assert.match(await page.textContent(`${bot} tr[data-number="1"]`), /it crashed on its first turn/);
  await page.waitForSelector(`${bot} tr[data-number="1"] ul.checks a`);
  await screenshot(page, "arena-failures");
  await page.click(`${bot} tr[data-number="1"] ul.checks a`);
  await page.waitForSelector("#now .tick-no, .problem");
  assert.equal(await page.$(".problem"), null, "the check replay is shown");
});

test("the bot's page shows its versions to a visitor, without the team's log", async () => {
  await page.goto(`${origin}/`);
  await page.waitForSelector("#signout");
  await page.click("#signout");
  await page.waitForSelector("#signin-form");
  await page.goto(`${origin}/arena-bot.html?game=quoridor&name=b1`);
  await page.waitForSelector('#bot tr.version[data-number="2"][data-state="build_failed"]');
  const text = await page.textContent("#bot");
  assert.doesNotMatch(text, /expected ';'/, "a visitor sees no build log");
  assert.equal(await page.$("#retire"), null, "nor the team's controls");
});

test("the admin page lists users, bots and the queue", async () => {
  await page.goto(`${origin}/`);
  await page.waitForSelector("#signin-form");
  await page.fill("#signin-name", "root");
  await page.fill("#signin-password", "correct horse");
  await page.click("#signin-form button[type=submit]");
  await page.waitForSelector("#admin-link");
  await page.click("#admin-link");
  await page.waitForSelector("#user-table");
  const users = await page.textContent("#user-table");
  for (const name of ["ada", "eve", "root"]) assert.match(users, new RegExp(name));
  assert.match(await page.textContent("#bot-table"), /runner/);
  await page.waitForSelector("#queue");
  await screenshot(page, "arena-admin");
});
