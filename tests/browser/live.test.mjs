// A tournament being played: its running match shows up on the home page and is watched live
// from the store's match to its result.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ARBITER, arbiter, browser, screenshot, serve, start, tempDir } from "./lib/harness.mjs";
import { makeSleepyPlayer, releaseSleepyPlayer } from "./lib/fixtures.mjs";

/** Waits until the store `db` holds a tournament (`tournament matches` reads it). */
async function tournamentIn(db) {
  for (let i = 0; i < 300; i++) {
    try {
      arbiter(["tournament", "matches", "--db", db]);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`no tournament in ${db} after 15 s`);
}

let dir;
let run;
let server;
let chrome;

before(async () => {
  dir = tempDir("live");
  // Its match waits for the sleepy bot until the page has seen it live.
  const players = makeSleepyPlayer(dir, { hold: true });
  const db = path.join(dir, "t.db");
  run = await start("arbiter tournament run", ARBITER, ["tournament", "run", players, "--game", "quoridor",
    "--add", "builtin:runner", "--db", db, "--seed", "1", "--jobs", "1", "--keep-failing",
    "--time-bank-ms", "100000", "--no-sandbox"]);
  // The server shows a store and never creates one: it starts once the run has made it.
  await tournamentIn(db);
  server = await serve(["serve", "--db", db]);
  chrome = await browser();
});

after(async () => {
  if (dir) releaseSleepyPlayer(dir);
  if (run) run.child.kill("SIGKILL");
  if (chrome) await chrome.close();
  if (server) await server.stop();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

test("a running match is listed live and followed to its result", async () => {
  const { page } = chrome;
  for (let i = 0; i < 300; i++) {
    const live = await (await fetch(`${server.origin}/api/live`)).json();
    if (live.length) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.goto(`${server.origin}/`);
  await page.waitForSelector("#live a");
  assert.match(await page.textContent("#live"), /LIVE.*tournament 1, match \d/s);
  await page.click("#live a");
  await page.waitForSelector("#now .tick-no");
  // The page says the match is live.
  await page.waitForSelector(".live-badge");
  const first = Number(/Tick (\d+)/.exec(await page.textContent("#now"))[1]);
  releaseSleepyPlayer(dir);
  await page.waitForFunction((n) => Number(/Tick (\d+)/.exec(document.querySelector("#now").textContent)[1]) > n,
    first, { timeout: 20000 });
  await screenshot(page, "live-match");
  await page.waitForSelector(".live-badge", { state: "hidden", timeout: 60000 });
  assert.match(await page.textContent(".match-head .meta"), /wins/);
  const [shown, total] = /Tick (\d+) \/ (\d+)/.exec(await page.textContent("#now")).slice(1);
  assert.equal(shown, total, "the viewer followed the newest tick to the end");
});
