// The tournament pages in a real browser: standings with error bars, the ratings chart, the
// cross-table, filtered matches leading to replays, and a player's page.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { arbiter, browser, screenshot, serve, tempDir } from "./lib/harness.mjs";
import { makeTournament } from "./lib/fixtures.mjs";

let server;
let chrome;
let page;

before(async () => {
  const db = makeTournament(tempDir("tournament"));
  // Tournament 2: games of four seats, which keep no cross-table.
  arbiter(["tournament", "run", "--game", "quoridor", "--players", "4", "--add", "builtin:runner",
    "--add", "builtin:blocker", "--add", "builtin:random", "--add", "builtin:aiarena-hard", "--db", db,
    "--rounds", "1", "--seed", "3", "--jobs", "2"]);
  server = await serve(["serve", "--db", db]);
  chrome = await browser();
  page = chrome.page;
});

after(async () => {
  if (chrome) await chrome.close();
  if (server) await server.stop();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

test("the home page lists the tournament", async () => {
  await page.goto(`${server.origin}/`);
  await page.waitForSelector("#tournaments table");
  assert.match(await page.textContent("#tournaments"), /tournament 1.*quoridor.*round-robin/s);
  assert.match(await page.textContent("#tournaments"), /finished/);
});

test("the standings page shows the table, the ratings chart and the cross-table", async () => {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#standings tbody tr");
  assert.equal(await page.locator("#standings tbody tr").count(), 3);
  assert.match(await page.textContent("#standings tbody tr:first-child"), /blocker/);
  assert.equal(await page.locator("#standings .rating-bar").count(), 3);
  assert.ok((await page.locator("#ratings-chart .series").count()) === 3, "a line per player");
  assert.equal(await page.locator("#cross-table tbody tr").count(), 3);
  assert.doesNotMatch(await page.textContent(".page-head"), /null|undefined/);
  // blocker won all its games: its rating has no upper bound, and the page says so.
  assert.match(await page.textContent("#standings tbody tr:first-child"), /no upper bound/);
  assert.match(await page.getAttribute("#standings th:has-text('LOS')", "title"), /stronger than the next one/);
  await page.waitForSelector("#matches tbody tr");
  assert.equal(await page.locator("#matches tbody tr").count(), 12);
  await screenshot(page, "tournament-standings");
});

test("matches are filtered and lead to their replays", async () => {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#matches tbody tr");
  await page.selectOption("#matches select[name=player]", "builtin:random");
  await page.waitForFunction(() => document.querySelectorAll("#matches tbody tr").length === 8);
  await page.selectOption("#matches select[name=result]", "win");
  await page.waitForFunction(() => document.querySelectorAll("#matches tbody tr").length < 8);
  await page.selectOption("#matches select[name=result]", "");
  await page.selectOption("#matches select[name=faults]", "yes");
  await page.waitForSelector("#matches .list-empty");
  await page.selectOption("#matches select[name=faults]", "");
  await page.waitForFunction(() => document.querySelectorAll("#matches tbody tr").length === 8);
  await page.click("#matches tbody tr:first-child a");
  await page.waitForSelector("#now .tick-no");
  assert.match(await page.textContent(".topbar"), /tournament 1/);
  assert.match(await page.textContent("h1"), /random/);
});

test("a player's page shows its standing, faults and slowest answers", async () => {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#standings tbody tr");
  await page.click("#standings a:has-text('runner')");
  await page.waitForSelector("#slowest-card");
  assert.match(await page.textContent(".page-head h1"), /runner/);
  assert.match(await page.textContent("#faults-card"), /No faults/);
  assert.ok((await page.locator("#slowest tbody tr").count()) > 0);
  await page.waitForSelector("#matches tbody tr");
  assert.equal(await page.locator("#matches tbody tr").count(), 8);
  await screenshot(page, "tournament-player");
});

test("at 390 px wide the tournament and player pages do not scroll sideways", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const [address, name] of [["tournament.html?t=1", "tournament-390px"], ["player.html?t=1&p=builtin:runner", "player-390px"]]) {
      await page.goto(`${server.origin}/${address}`);
      await page.waitForSelector("#matches tbody tr");
      // The cross-table of a dozen players is about 1000 px wide: it must scroll in its card.
      await page.evaluate(() => {
        const cross = document.querySelector("#cross-table");
        if (cross) cross.style.minWidth = "1000px";
      });
      const { scroll, inner } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
      }));
      assert.ok(scroll <= inner, `${address}: ${scroll} px wide in a ${inner} px window`);
      // A table wider than its card scrolls inside it.
      const cards = await page.$$eval(".card", (all) => all.map((c) => c.getBoundingClientRect().right));
      for (const right of cards) assert.ok(right <= inner, `a card ends at ${right} px`);
      await screenshot(page, name);
    }
  } finally {
    await page.setViewportSize({ width: 1400, height: 950 });
  }
});

test("the match filters are kept in the address and restored from it", async () => {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#matches tbody tr");
  await page.selectOption("#matches select[name=player]", "builtin:runner");
  await page.selectOption("#matches select[name=result]", "win");
  await page.waitForFunction(() => {
    const q = new URL(location.href).searchParams;
    return q.get("player") === "builtin:runner" && q.get("result") === "win" && q.get("t") === "1";
  });
  await page.waitForFunction(() => {
    const n = document.querySelectorAll("#matches tbody tr").length;
    return n > 0 && n < 8;
  });
  const rows = await page.locator("#matches tbody tr").count();
  await page.goto(page.url());
  await page.waitForSelector("#matches tbody tr");
  assert.equal(await page.inputValue("#matches select[name=player]"), "builtin:runner");
  assert.equal(await page.inputValue("#matches select[name=result]"), "win");
  assert.equal(await page.locator("#matches tbody tr").count(), rows);
});

test("a player page's matches open their replays with that player chosen", async () => {
  await page.goto(`${server.origin}/player.html?t=1&p=builtin:random`);
  await page.waitForSelector("#matches tbody tr a");
  const links = await page.$$eval("#matches tbody tr a", (all) => all.map((a) => a.getAttribute("href")));
  assert.equal(links.length, 8);
  for (const link of links) assert.match(link, /[?&]player=[01]$/);
  await page.click("#matches tbody tr:first-child a");
  await page.waitForSelector("#now .tick-no");
  const chosen = await page.inputValue("#debug-player");
  assert.match(await page.textContent(`#debug-player option[value="${chosen}"]`), /random/);
});

test("a rating without an error bar after a perfect score says which bound it is", async () => {
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#standings");
  const words = await page.evaluate(async () => {
    const { ratingWords } = await import("/js/tournament/standings.js");
    const row = (wins, losses) => ({ rating: 800, error95: null, games: 20, wins, draws: 0, losses });
    return [ratingWords(row(20, 0)), ratingWords(row(0, 20)), ratingWords({ ...row(0, 0), games: 0 })];
  });
  assert.match(words[0], /all 20 games won.*no upper bound/);
  assert.match(words[1], /all 20 games lost.*no lower bound/);
  assert.match(words[2], /too few games/);
});

test("a tournament of 4-seat games shows no empty cross-table card", async () => {
  await page.goto(`${server.origin}/tournament.html?t=2`);
  await page.waitForSelector("#standings tbody tr");
  assert.equal(await page.locator("#standings tbody tr").count(), 4);
  assert.ok(!(await page.isVisible("#cross-card")), "no cross-table card");
  const [ratings, standings] = await Promise.all(["#ratings-card", "#standings-card"].map((c) =>
    page.$eval(c, (el) => el.getBoundingClientRect().width)));
  assert.ok(ratings > standings * 0.9, "the ratings chart takes the whole row");
  await screenshot(page, "tournament-four-seats");
});
