// A tournament on every page: one colour per player (the standings, the player's page and the
// replays of its matches, whatever seat it played from), and the name its organiser gave it.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { arbiter, browser, serve, tempDir } from "./lib/harness.mjs";
import { makeTournament } from "./lib/fixtures.mjs";

let db;
let server;
let chrome;
let page;

before(async () => {
  db = makeTournament(tempDir("colours"));
  server = await serve(["serve", "--db", db]);
  chrome = await browser();
  page = chrome.page;
});

after(async () => {
  if (chrome) await chrome.close();
  if (server) await server.stop();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

/** Each standings row's player alias and swatch colour. */
async function standingsColours() {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#standings tbody tr");
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll("#standings tbody tr")].map((row) =>
    [row.querySelector(".swatch").parentElement.textContent.trim(), getComputedStyle(row.querySelector(".swatch")).backgroundColor])));
}

test("a player keeps its colour on the tournament page, its own page and in the replays of its matches", async () => {
  const colours = await standingsColours();
  assert.equal(new Set(Object.values(colours)).size, 3, `three players, three colours: ${JSON.stringify(colours)}`);

  await page.goto(`${server.origin}/player.html?t=1&p=${encodeURIComponent("builtin:random")}`);
  await page.waitForSelector("h1 .swatch");
  const own = await page.evaluate(() => getComputedStyle(document.querySelector("h1 .swatch")).backgroundColor);
  assert.equal(own, colours[Object.keys(colours).find((alias) => alias.includes("random"))]);

  // Every match, both seats: the replay's seat colour is the player's.
  const matches = await page.evaluate(async () => (await (await fetch("/api/tournaments/1/matches")).json()));
  const list = Array.isArray(matches) ? matches : matches.matches;
  for (const m of list.slice(0, 4)) {
    await page.goto(`${server.origin}/replay.html?t=1&m=${m.id}`);
    await page.waitForSelector("#now .tick-no");
    const seats = await page.evaluate(() => [...document.querySelectorAll("#players .player .swatch")].map((s) => getComputedStyle(s).backgroundColor));
    const names = await page.evaluate(() => [...document.querySelectorAll("#players .player .name")].map((n) => n.textContent));
    names.forEach((name, seat) => {
      const alias = Object.keys(colours).find((a) => a.includes(name));
      assert.equal(seats[seat], colours[alias], `match ${m.id}: seat ${seat} (${name}) in its tournament colour`);
    });
  }
});

test("a tournament's name heads its page and names it in the list", async () => {
  arbiter(["tournament", "name", "--db", db, "Class 3B, spring final"]);
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#standings tbody tr");
  assert.match(await page.textContent("h1"), /^Class 3B, spring final tournament 1$/);
  assert.match(await page.title(), /^Class 3B, spring final · quoridor/);
  await page.goto(`${server.origin}/`);
  await page.waitForSelector("#tournaments table");
  assert.match(await page.textContent("#tournaments tbody tr"), /Class 3B, spring final #1/);
});

test("a cross-table cell opens the matches of that pairing", async () => {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#cross-table tbody tr");
  const cell = page.locator("#cross-table tbody tr:first-child td a").first();
  const title = await cell.getAttribute("title");
  const [, one, two] = title.match(/^the matches of (\S+) against (\S+)$/);
  await cell.click();
  await page.waitForSelector("#matches tbody tr");
  assert.match(page.url(), /opponent=/);
  const rows = await page.locator("#matches tbody tr .seats").allTextContents();
  assert.equal(rows.length, 4, "two rounds, each pairing twice with the seats swapped");
  for (const row of rows) {
    assert.ok(row.includes(one) && row.includes(two), `${row} is a match of ${one} against ${two}`);
  }
  assert.equal(await page.inputValue("#matches select[name=opponent]"), `builtin:${two}`);
});
