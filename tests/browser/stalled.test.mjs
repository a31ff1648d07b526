// Nothing stale: a tournament whose runner was killed (SIGKILL, so it could not say goodbye)
// is shown stopped with the command that goes on with it, and its match that was being played
// is shown stalled, not live, once its replay has not grown for a while (shortened here with
// ARBITER_STALLED_AFTER_MS).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { ARBITER, arbiter, browser, screenshot, serve, start, tempDir } from "./lib/harness.mjs";
import { makeSleepyPlayer } from "./lib/fixtures.mjs";


const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let dir;
let db;
let server;
let chrome;

/** The running matches of the store's tournament (none while it has no tournament yet). */
function runningMatches() {
  try {
    const all = JSON.parse(arbiter(["tournament", "matches", "--db", db, "--json"]));
    return all.filter((m) => m.state === "running");
  } catch {
    return [];
  }
}

before(async () => {
  dir = tempDir("stalled");
  const players = makeSleepyPlayer(dir);
  db = path.join(dir, "t.db");
  const { child: run } = await start("arbiter tournament run", ARBITER, ["tournament", "run", players,
    "--game", "quoridor", "--add", "builtin:runner", "--db", db, "--seed", "1", "--jobs", "1",
    "--keep-failing", "--time-bank-ms", "100000", "--no-sandbox", "--lease", "1"]);
  try {
    for (let i = 0; i < 600 && !runningMatches().length; i++) await sleep(50);
    assert.ok(runningMatches().length, "a match is being played");
    // Let the match write a few ticks, then kill its runner without warning.
    await sleep(1500);
  } finally {
    run.kill("SIGKILL");
  }
  server = await serve(["serve", "--db", db], { env: { ARBITER_STALLED_AFTER_MS: "1500" } });
  chrome = await browser();
});

after(async () => {
  if (chrome) await chrome.close();
  if (server) await server.stop();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

test("a tournament whose runner was killed says it is stopped and how to resume it", async () => {
  const { page } = chrome;
  // The runner's lease (1 s) runs out.
  await sleep(1500);
  await page.goto(`${server.origin}/tournament.html?t=1`);
  await page.waitForSelector("#resume-hint");
  assert.equal(await page.textContent("#runner-gone"), "stopped");
  assert.doesNotMatch(await page.textContent(".page-head"), /running/);
  assert.equal(await page.textContent("#resume-hint code"), `arbiter tournament resume --db ${db} --tournament 1`);
  await page.waitForSelector("#matches tbody tr");
  assert.match(await page.textContent("#matches"), /stalled/);
  assert.doesNotMatch(await page.textContent("#matches"), /LIVE|watch live/);
  await screenshot(page, "tournament-runner-gone");

  await page.goto(`${server.origin}/`);
  await page.waitForSelector("#tournaments table");
  assert.match(await page.textContent("#tournaments"), /stopped/);
  assert.match(await page.textContent("#live"), /No match is being played/);
});

test("the match its runner left is shown stalled, not live, and its stream ends", async () => {
  const { page } = chrome;
  const matches = await (await fetch(`${server.origin}/api/tournaments/1/matches?state=running`)).json();
  assert.equal(matches.length, 1);
  const m = matches[0].id;
  await page.goto(`${server.origin}/replay.html?t=1&m=${m}`);
  await page.waitForSelector(".stalled-badge", { state: "visible", timeout: 10000 });
  assert.ok(!(await page.isVisible(".live-badge")), "not LIVE");
  assert.match(await page.textContent(".match-head .meta"), /stalled/);
  const stream = await fetch(`${server.origin}/api/tournaments/1/matches/${m}/replay/stream`,
    { signal: AbortSignal.timeout(10000) });
  assert.match(await stream.text(), /event: stalled[\s\S]*event: end/);
  await screenshot(page, "replay-stalled-match");
});

test("a player that failed the compliance check links to the check's replay, never to no faults", async () => {
  const { page } = chrome;
  await page.goto(`${server.origin}/player.html?t=1&p=sleepy`);
  await page.waitForSelector("#faults-card");
  assert.match(await page.textContent("#check-failed"), /Failed the compliance check: .+/);
  assert.doesNotMatch(await page.textContent("#faults-card"), /No faults/);
  await page.click("#check-failed a");
  await page.waitForSelector("#now .tick-no");
  assert.match(await page.textContent(".topbar"), /tournament 1.*check of sleepy/s);
  assert.match(await page.textContent("h1"), /sleepy/);
  assert.equal(await page.inputValue("#debug-player"), "0");
  await screenshot(page, "player-check-replay");
});
