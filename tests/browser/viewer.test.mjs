// The replay viewer in a real browser: stepping, the debug panel, errors, crashed players, the
// #draw overlay, other games, large and newer replays, live following, the exported page.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { arbiter, browser, replayPageSteps, screenshot, serve, tempDir } from "./lib/harness.mjs";
import { makeReplays } from "./lib/fixtures.mjs";

let fixtures;
let server;
let chrome;
let page;

before(async () => {
  fixtures = makeReplays(tempDir("viewer"));
  server = await serve(["serve", "--replays", fixtures.replays]);
  chrome = await browser();
  page = chrome.page;
});

after(async () => {
  if (chrome) await chrome.close();
  if (server) await server.stop();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

const { open, settle, expectNow } = replayPageSteps(() => page, () => server.origin);
const nowText = () => page.textContent("#now");

test("a replay opens at its start and steps with the buttons and the keyboard", async () => {
  await open("id=crash.jsonl");
  assert.match(await page.textContent("h1"), /crashing-bot\.sh/);
  await expectNow(/Tick 0 \/ \d+/);
  await page.click("#step-forward");
  await expectNow(/Tick 1 \//);
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 2 \//);
  await page.keyboard.press("ArrowLeft");
  await expectNow(/Tick 1 \//);
  await page.keyboard.press("End");
  await expectNow(/runner/);
  await page.keyboard.press("Home");
  await expectNow(/Tick 0 \//);
});

test("the debug panel shows what the chosen player received, answered and logged", async () => {
  await open("id=crash.jsonl&tick=1");
  await page.selectOption("#debug-player", "0");
  await settle();
  const received = await page.textContent(".debug .received pre");
  assert.equal(received, "1\n4 0 10\n4 8 10\n0\n\n");
  assert.equal(await page.textContent(".debug .sent pre"), "4 4");
  assert.match(await page.textContent(".debug .log"), /^tick 1 thinking\n#draw cell 4 4 red target\n/);
  assert.match(await page.textContent(".debug .error-box"), /not a legal pawn move/);
  assert.ok(await page.isVisible(".debug.faulty"), "a faulty tick is shown on red");
  assert.match(await page.textContent(".debug .timing"), /time used .*bank left/);
  // The #draw lines are drawn over the board, and the one it cannot read is explained.
  assert.equal(await page.locator(".overlay .draw-cell").count(), 1);
  assert.equal(await page.locator(".overlay .draw-head").count(), 1);
  assert.match(await page.textContent(".draw-problems"), /unknown drawing "wobble"/);
  await screenshot(page, "replay-debug-panel");

  await page.selectOption("#debug-player", "1");

  await settle();
  // Between its turns a player's latest tick with anything of it stays shown, marked.
  assert.match(await page.textContent(".debug .tick-status"), /from tick 0/);
  assert.equal(await page.locator(".overlay .draw-cell").count(), 0);
  await page.click("#show-drawings");
  await page.selectOption("#debug-player", "0");
  await settle();
  await settle();
  assert.equal(await page.locator(".overlay .draw-cell").count(), 0, "drawings can be hidden");
  await page.click("#show-drawings");
});

test("the stdin a player was sent so far can be downloaded to replay it on a terminal", async () => {
  await open("id=crash.jsonl&tick=3&player=0");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-stdin")]);
  assert.equal(download.suggestedFilename(), "stdin-player0-tick3.txt");
  const text = fs.readFileSync(await download.path(), "utf8");
  assert.equal(text, "2\n0\n9\n4 0 10\n4 8 10\n1\n4 0 10\n4 8 10\n0\n\n3\n4 1 10\n4 7 10\n0\n\n");
});

test("next and previous error jump between the chosen player's faults", async () => {
  await open("id=crash.jsonl");
  await page.selectOption("#debug-player", "0");
  await settle();
  await page.click("#next-error");
  await expectNow(/Tick 1 \//);
  await page.keyboard.press("n");
  await expectNow(/Tick 3 \//);
  assert.match(await page.textContent(".debug .error-box"), /expected 2 numbers/);
  await page.keyboard.press("n");
  await page.keyboard.press("p");
  await expectNow(/Tick 3 \//);
  // The timeline marks every error tick.
  const marked = await page.evaluate(() => {
    const canvas = document.querySelector(".timeline .marks");
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let red = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] > 200 && data[i + 1] < 80) red++;
    return red;
  });
  assert.ok(marked > 0, "red marks on the timeline");
});

test("a crashed player is crossed out from the tick it went down", async () => {
  await open("id=crash.jsonl");
  await page.selectOption("#debug-player", "0");
  await settle();
  const downAt = await page.evaluate(async () => {
    const r = await (await fetch("/api/replay?id=crash.jsonl")).json();
    return r.ticks.findIndex((t) => t.bots[0].offline);
  });
  assert.ok(downAt > 0);
  for (let i = 0; i < downAt - 1; i++) await page.keyboard.press("ArrowRight");
  await expectNow(new RegExp(`Tick ${downAt - 1} /`));
  assert.equal(await page.locator(".player.down").count(), 0, "not down before");
  await page.keyboard.press("ArrowRight");
  await expectNow(new RegExp(`Tick ${downAt} /`));
  const name = page.locator(".player.down .name");
  assert.equal(await name.count(), 1);
  assert.equal(await name.textContent(), "crashing-bot.sh");
  const line = await name.evaluate((el) => getComputedStyle(el).textDecorationLine);
  assert.equal(line, "line-through");
  assert.match(await page.textContent(".player.down .badge"), new RegExp(`offline since tick ${downAt}`));
  assert.match(await page.textContent(".debug .error-box"), /exit|crash|closed/i);
  await screenshot(page, "replay-crashed-player");
});

test("playing advances by itself and pauses", async () => {
  await open("id=crash.jsonl");
  await page.selectOption("select[aria-label=speed]", "64");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => /Tick ([3-9]|\d\d) /.test(document.querySelector("#now").textContent));
  await page.keyboard.press("Space");
  await page.waitForTimeout(100);
  const paused = await nowText();
  await page.waitForTimeout(200);
  assert.equal(await nowText(), paused);
});

test("four players, gzip replay: every pawn and its goal edge are drawn", async () => {
  await open("id=four.jsonl.gz&tick=30");
  assert.equal(await page.locator(".players .player").count(), 4);
  assert.equal(await page.locator(".board-svg .pawn").count(), 4);
  assert.equal(await page.locator(".board-svg .goal").count(), 4);
  assert.ok((await page.locator(".board-svg .wall").count()) > 0);
  await screenshot(page, "replay-four-players");
});

test("puoribor and domino boards are drawn", async () => {
  await open("id=puoribor.jsonl");
  await page.keyboard.press("End");
  await settle();
  assert.ok((await page.locator(".board-svg.puoribor .wall").count()) > 0);
  assert.equal(await page.locator(".board-svg.puoribor .pawn").count(), 2);
  await screenshot(page, "replay-puoribor");
  await open("id=domino.jsonl");
  await page.keyboard.press("End");
  await settle();
  assert.ok((await page.locator(".board-svg.domino .obstacle").count()) > 0);
  assert.ok((await page.locator(".board-svg.domino .domino").count()) > 100);
  await page.keyboard.press("Home");
  await settle();
  assert.equal(await page.locator(".board-svg.domino .domino").count(), 0);
  await page.keyboard.press("End");
  await settle();
  await screenshot(page, "replay-domino");
});

test("a game the viewer does not know is shown as text", async () => {
  await open("id=unknown-game.jsonl&tick=2");
  assert.match(await page.textContent(".text-board"), /cannot draw "tetris"/);
  assert.match(await page.textContent(".text-board .state-text:not(.action)"), /"pawns"/);
  assert.match(await page.textContent(".debug .received"), /\S/);
});

test("a replay of a newer format gives a readable message", async () => {
  await page.goto(`${server.origin}/replay.html?id=future.jsonl`);
  await page.waitForSelector(".problem");
  const text = await page.textContent(".problem");
  assert.match(text, /newer Arbiter/);
  assert.match(text, /7\.2/);
  await screenshot(page, "replay-newer-format");
  await page.goto(`${server.origin}/replay.html?id=missing.jsonl`);
  await page.waitForSelector(".problem");
  assert.match(await page.textContent(".problem"), /no replay "missing.jsonl"/);
});

test("a 10,000-tick replay loads and scrubs without stalls", async () => {
  const started = Date.now();
  await open("id=long.jsonl");
  const loaded = Date.now() - started;
  assert.ok(loaded < 15000, `loaded in ${loaded} ms`);
  await expectNow(/Tick 0 \/ 9999/);
  const timing = await page.evaluate(async () => {
    const slider = document.querySelector(".timeline .slider");
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const t0 = performance.now();
    let worst = 0;
    for (let i = 0; i < 60; i++) {
      const before = performance.now();
      slider.value = String(Math.floor((i * 9973) % 10000));
      slider.dispatchEvent(new Event("input"));
      await frame();
      await frame();
      worst = Math.max(worst, performance.now() - before);
    }
    return { total: performance.now() - t0, worst };
  });
  assert.ok(timing.worst < 500, `worst seek took ${timing.worst.toFixed(0)} ms`);
  await page.keyboard.press("End");
  await expectNow(/Tick 9999 \/ 9999/);
  const keys = Date.now();
  for (let i = 0; i < 30; i++) await page.keyboard.press("p");
  assert.ok(Date.now() - keys < 5000, "error jumps are quick");
  await screenshot(page, "replay-long");
});

test("a match being written is followed live to its end", async () => {
  const source = fs.readFileSync(path.join(fixtures.replays, "crash.jsonl"), "utf8").trim().split("\n");
  const growing = path.join(fixtures.replays, "growing.jsonl");
  fs.writeFileSync(growing, source.slice(0, 3).join("\n") + "\n");
  await open("id=growing.jsonl");
  assert.ok(await page.isVisible(".live-badge"));
  await expectNow(/Tick 1 \/ 1/);
  for (let n = 3; n < source.length; n++) {
    fs.appendFileSync(growing, source[n] + "\n");
    if (n === 6) await expectNow(/Tick 5 \/ 5/);
  }
  await page.waitForSelector(".live-badge", { state: "hidden" });
  const last = JSON.parse(source[source.length - 2]).tick;
  await expectNow(new RegExp(`Tick ${last} / ${last}`));
  assert.match(await page.textContent(".match-head .meta"), /runner wins/);
});

test("an exported page plays the replay with no server", async () => {
  const out = path.join(fixtures.dir, "match.html");
  arbiter(["export", path.join(fixtures.replays, "crash.jsonl"), "-o", out]);
  const html = fs.readFileSync(out, "utf8");
  assert.ok(!/src="\/js\//.test(html) && !/href="\/css\//.test(html), "nothing is fetched from a server");
  await page.goto(`file://${out}`);
  await page.waitForSelector("#now .tick-no");
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 1 \//);
  await settle();
  assert.equal(await page.textContent(".debug .sent pre"), "4 4");
  assert.equal(await page.locator(".overlay .draw-cell").count(), 1);
  await screenshot(page, "exported-page");
});

test("the home page lists the replays", async () => {
  await page.goto(`${server.origin}/`);
  await page.waitForSelector("#replay-files");
  const text = await page.textContent("#replay-files");
  assert.match(text, /crash\.jsonl/);
  assert.match(text, /four\.jsonl\.gz/);
  assert.match(await page.textContent("#replays"), /newer than this arbiter reads/);
  await page.click("text=crash.jsonl");
  await page.waitForSelector("#now .tick-no");
  await screenshot(page, "home-replays");
});

test("arbiter view serves one replay and prints its page's address", async () => {
  const one = await serve(["view", path.join(fixtures.replays, "four.jsonl.gz")]);
  try {
    assert.match(one.url.pathname + one.url.search, /^\/replay\.html\?id=four\.jsonl\.gz$/);
    await page.goto(one.url.href);
    await page.waitForSelector("#now .tick-no");
    assert.equal(await page.locator(".players .player").count(), 4);
    const list = await page.evaluate(async () => (await fetch("/api/replays")).json());
    assert.deepEqual(list.map((r) => r.id), ["four.jsonl.gz"]);
  } finally {
    one.stop();
  }
});

test("after a choice in the Player or speed drop-down, the arrows step and space plays", async () => {
  await open("id=crash.jsonl&tick=2");
  await page.focus("#debug-player");
  await page.selectOption("#debug-player", "1");
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 3 \//);
  assert.equal(await page.inputValue("#debug-player"), "1", "the arrow left the player chosen");
  await page.keyboard.press("ArrowLeft");
  await expectNow(/Tick 2 \//);
  const speed = "select[aria-label=speed]";
  await page.focus(speed);
  await page.selectOption(speed, "64");
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 3 \//);
  assert.equal(await page.inputValue(speed), "64");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => Number(/Tick (\d+)/.exec(document.querySelector("#now").textContent)[1]) > 5);
  await page.keyboard.press("Space");
  // Seats are labelled from 0, and so are their keys.
  await page.keyboard.press("0");
  await page.waitForFunction(() => document.querySelector("#debug-player").value === "0");
  await page.keyboard.press("1");
  await page.waitForFunction(() => document.querySelector("#debug-player").value === "1");
  assert.match(await page.textContent(".shortcuts"), /0…9/);
});

test("the tick and the player are kept in the address, restored from it, and copied as a link", async () => {
  await open("id=crash.jsonl");
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 3 \//);
  await page.keyboard.press("1");
  await page.waitForFunction(() => {
    const q = new URL(location.href).searchParams;
    return q.get("tick") === "3" && q.get("player") === "1" && q.get("id") === "crash.jsonl";
  });
  const link = page.url();
  await page.goto(`${server.origin}/`);
  await page.goto(link);
  await page.waitForSelector("#now .tick-no");
  await expectNow(/Tick 3 \//);
  assert.equal(await page.inputValue("#debug-player"), "1");
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
  await page.click("#copy-link");
  await page.waitForFunction(() => document.querySelector("#copy-link").textContent === "link copied");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
});

test("the overlay's arrow heads and words leave the pawns' numbers visible", async () => {
  await open("id=drawn-on-pawns.jsonl&tick=1&player=0");
  await settle();
  assert.equal(await page.locator(".overlay .draw-head").count(), 1);
  const overlaps = await page.evaluate(() => {
    const inside = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const numbers = [...document.querySelectorAll(".board-svg .pawn text")].map((t) => t.getBoundingClientRect());
    const drawn = [...document.querySelectorAll(".overlay .draw-head, .overlay .draw-text, .overlay .draw-label")];
    const out = [];
    for (const shape of drawn) {
      const box = shape.getBoundingClientRect();
      numbers.forEach((n, pawn) => inside(box, n) && out.push(`${shape.getAttribute("class")} on pawn ${pawn}`));
    }
    return out;
  });
  assert.deepEqual(overlaps, []);
  await screenshot(page, "replay-overlay-on-pawns");
});

test("a trimmed stderr is counted without the referee's marker", async () => {
  await open("id=drawn-on-pawns.jsonl&tick=2&player=0");
  await settle();
  assert.equal(await page.textContent(".debug .count"), "2000 / 2000 characters, the rest cut");
});

test("a crash with no answer is not called a refused answer", async () => {
  const crashed = await page.evaluate(async () => {
    const r = await (await fetch("/api/replay?id=crash.jsonl")).json();
    return r.ticks.find((t) => t.player === 0 && t.bots[0].error && !(t.bots[0].sent || []).length && t.action.kind !== "forfeit");
  });
  assert.ok(crashed, "the crashing bot's last turn has an error and no answer");
  await open(`id=crash.jsonl&tick=${crashed.tick}&player=0`);
  await expectNow(new RegExp(`Tick ${crashed.tick} /`));
  const now = await nowText();
  assert.doesNotMatch(now, /refused/);
  assert.match(now, /played for it: it gave no answer/);
});

test("a replay cut short long ago is shown stalled, not live, and its stream ends", async () => {
  const source = fs.readFileSync(path.join(fixtures.replays, "crash.jsonl"), "utf8").trim().split("\n");
  const cut = path.join(fixtures.replays, "cut.jsonl");
  fs.writeFileSync(cut, source.slice(0, 4).join("\n") + "\n");
  const longAgo = new Date(Date.now() - 3600 * 1000);
  fs.utimesSync(cut, longAgo, longAgo);
  await open("id=cut.jsonl");
  await page.waitForSelector(".stalled-badge", { state: "visible" });
  assert.ok(!(await page.isVisible(".live-badge")), "not LIVE");
  assert.match(await page.textContent(".match-head .meta"), /stalled: no result and no new tick/);
  const stream = await fetch(`${server.origin}/api/replay/stream?id=cut.jsonl`, { signal: AbortSignal.timeout(10000) });
  const text = await stream.text();
  assert.match(text, /event: stalled[\s\S]*event: end/);
  await screenshot(page, "replay-stalled");
  const live = await (await fetch(`${server.origin}/api/live`)).json();
  assert.ok(!live.some((e) => e.replay && e.replay.id === "cut.jsonl"), "not listed as live");
});
