// The arena's ladder in Chromium, against an arena that tests/arena_web.rs serves (ARENA_URL)
// with a real ladder running: the game's robots enrolled, ada's bot `walker` (a Python starter
// built and checked by the arena's worker), the scheduler queueing matches as fast as the
// worker plays them. The leaderboard fills and changes by itself (server-sent events), the bot's
// page shows its rating chart and its matches, a match opens its replay with the bot's seat
// chosen, and a playground match started from the page is followed to its end.
//
// Run by tests/arena_web.rs only (`tests/browser/run arena-ladder.mjs`). Nothing here waits a
// fixed time: each step waits for what the page shows; the timeouts only guard against hangs.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { browser, screenshot } from "./lib/harness.mjs";

const origin = process.env.ARENA_URL;
let chrome;
let page;

/** Games played by the worker in the sandbox: minutes at most, whatever the machine. */
const PLAYED = 600000;

before(async () => {
  assert.ok(origin, "ARENA_URL names the arena under test (tests/arena_web.rs sets it)");
  chrome = await browser();
  page = chrome.page;
});

after(async () => {
  if (chrome) await chrome.close();
});

/** The games of every version on the leaderboard shown, added up. */
function gamesShown() {
  return page.$$eval("#leaderboard-table tr.entry td.games", (cells) => cells.reduce((n, c) => n + Number(c.textContent), 0));
}

test("the ladder's page lists the robots and the bot, and its games grow without a reload", async () => {
  await page.goto(`${origin}/arena-ladder.html?game=quoridor`);
  await page.waitForSelector("#leaderboard-table tr.entry.robot");
  await page.waitForSelector('#leaderboard-table tr.entry[data-bot="walker"]', { timeout: PLAYED });
  const robots = await page.$$("#leaderboard-table tr.entry.robot");
  assert.ok(robots.length >= 2, `${robots.length} robots shown`);
  assert.match(await page.textContent("#leaderboard-table tr.entry.robot"), /robot/);
  const before = await gamesShown();
  await page.waitForFunction((seen) => {
    const cells = document.querySelectorAll("#leaderboard-table tr.entry td.games");
    return [...cells].reduce((n, c) => n + Number(c.textContent), 0) > seen;
  }, before, { timeout: PLAYED });
  await page.waitForSelector("#finished-table tr.match", { timeout: PLAYED });
  const ranks = await page.$$eval("#leaderboard-table tr.entry", (rows) => rows.map((r) => Number(r.dataset.rank)));
  assert.deepEqual(ranks, ranks.map((_, i) => i + 1), "ranked 1, 2, 3, … best first");
  await screenshot(page, "arena-ladder");
});

test("the bot's page shows its rating chart and its matches, and a match opens on its seat", async () => {
  await page.click('#leaderboard-table tr.entry[data-bot="walker"] a');
  await page.waitForSelector("#bot-matches #match-table tr.match[data-state=finished]", { timeout: PLAYED });
  await page.waitForSelector("#rating-chart svg.rating-chart path.score-line", { timeout: PLAYED });
  assert.ok(Number(await page.getAttribute("#rating-chart", "data-points")) >= 1);
  const row = "#match-table tr.match[data-state=finished]";
  assert.match(await page.textContent(`${row} td.opponents`), /robot|v\d/);
  const href = await page.getAttribute(`${row} a.replay-link`, "href");
  const seat = new URL(href, origin).searchParams.get("player");
  assert.ok(seat !== null, `the replay link chooses the bot's seat: ${href}`);
  await screenshot(page, "arena-bot-ladder");
  await page.click(`${row} a.replay-link`);
  await page.waitForSelector("#now .tick-no, .problem");
  assert.equal(await page.$(".problem"), null, "the match's replay is shown");
  const chosen = await page.textContent(`#players li.player.selected[data-player="${seat}"] .name`);
  assert.match(chosen, /walker/, "the bot's seat is the one chosen");
});

test("a playground match started from the bot's page is followed to its replay", async () => {
  await page.goto(`${origin}/`);
  await page.waitForSelector("#signin-form");
  await page.fill("#signin-name", "ada");
  await page.fill("#signin-password", "correct horse");
  await page.click("#signin-form button[type=submit]");
  await page.waitForSelector("#my-bots");
  await page.goto(`${origin}/arena-bot.html?game=quoridor&name=walker`);
  await page.waitForSelector("#playground-form");
  await page.fill("#playground-opponent", "random");
  await page.click("#playground-form button[type=submit]");
  await page.waitForSelector("#playground-status .pill, #playground-form .form-error");
  assert.equal(await page.$("#playground-form .form-error"), null);
  assert.match(await page.textContent("#playground-status"), /match #\d+/);
  await page.waitForURL(/replay\.html\?arena-match=\d+&player=\d/, { timeout: PLAYED });
  await page.waitForSelector("#now .tick-no, .problem");
  assert.equal(await page.$(".problem"), null, "the playground match's replay is shown");
  assert.match(await page.textContent("#players li.player.selected .name"), /walker/);
  await screenshot(page, "arena-playground");
});

test("a challenge of a bot that does not exist is refused with the server's words", async () => {
  await page.goto(`${origin}/arena-bot.html?game=quoridor&name=walker`);
  await page.waitForSelector("#challenge-form");
  await page.fill("#challenge-opponent", "nobody-here");
  await page.fill("#challenge-games", "2");
  await page.click("#challenge-form button[type=submit]");
  await page.waitForSelector("#challenge-form .form-error");
  assert.match(await page.textContent("#challenge-form .form-error"), /no bot "nobody-here"/);
});
