// Following one bot through a match in a real browser: its latest turn and drawings stay in
// view between its turns, its turns one after another, its console over the whole match; the
// end-of-match summary, the charts, and a board that uses the screen (zoom, big boards).

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
  fixtures = makeReplays(tempDir("follow"));
  const at = (name) => path.join(fixtures.replays, name);
  arbiter(["play", "labyrinth", "--players", "10", "--seed", "3",
    ...Array.from({ length: 10 }, () => ["--bot", "builtin:greedy"]).flat(), "--replay", at("lab10.jsonl")]);
  arbiter(["play", "domino", "--board", "51", "--seed", "2", "--bot", "builtin:random", "--bot", "builtin:random",
    "--replay", at("domino51.jsonl")]);
  arbiter(["play", "puoribor", "--seed", "3", "--bot", "builtin:random", "--bot", "builtin:rotator",
    "--replay", at("rotations.jsonl")]);
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

test("between its turns the chosen bot's latest turn and drawings stay in view", async () => {
  // The crashing bot (seat 0) plays the odd ticks; its opponent the even ones.
  await open("id=crash.jsonl&tick=1&player=0");
  await settle();
  assert.match(await page.textContent(".debug .tick-status"), /its turn/);
  assert.equal(await page.locator(".overlay .draw-cell").count(), 1);
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 2 \//);
  await settle();
  assert.match(await page.textContent(".debug .tick-status"), /from tick 1/);
  assert.equal(await page.textContent(".debug .sent pre"), "4 4", "tick 1's answer stays shown");
  assert.match(await page.textContent(".debug .log"), /^tick 1 thinking/);
  assert.equal(await page.locator(".overlay .draw-cell").count(), 1, "the drawing stays until its next turn");
});

test("previous and next turn walk the chosen bot's turns, by button and by key", async () => {
  await open("id=crash.jsonl&tick=0&player=0");
  await settle();
  assert.ok(await page.isDisabled("#prev-turn"));
  await page.click("#next-turn");
  await expectNow(/Tick 1 \//);
  await page.keyboard.press("]");
  await expectNow(/Tick 3 \//);
  await page.keyboard.press("[");
  await expectNow(/Tick 1 \//);
  await page.selectOption("#debug-player", "1");
  await page.click("#next-turn");
  await expectNow(/Tick 2 \//);
});

test("the console holds the bot's whole match, searchable, with ticks to jump to and a download", async () => {
  await open("id=crash.jsonl&tick=0&player=0");
  await page.click("#console summary");
  await page.waitForSelector("#console .console-tick");
  const ticks = await page.locator("#console .console-tick").count();
  assert.ok(ticks >= 4, `a block per tick of the bot (${ticks})`);
  const text = await page.textContent("#console-body");
  assert.match(text, /tick 1 · its turn/);
  assert.match(text, /tick 1 thinking/);
  assert.match(text, /not a legal pawn move/);
  await page.fill("#console-search", "giving up");
  await page.waitForFunction(() => document.querySelectorAll("#console .console-tick").length === 1);
  assert.equal(await page.textContent("#console mark"), "giving up");
  await page.click("#console .tick-head");
  await expectNow(/Tick 7 \//);
  assert.ok(await page.isVisible("#console .console-tick.current"), "the shown tick's block is marked");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#console-download")]);
  assert.equal(download.suggestedFilename(), "console-player0.txt");
  const saved = fs.readFileSync(await download.path(), "utf8");
  assert.match(saved, /=== tick 1 · its turn ===\n--- received at [^\n]+\n1\n4 0 10\n/);
  assert.match(saved, /--- answered at [^\n]+\n4 4\n/);
  assert.match(saved, /--- error\n.*expected 2 numbers/);
});

test("the end of the match is summed up over the board at the last tick", async () => {
  await open("id=four.jsonl.gz&tick=0");
  assert.ok(await page.isHidden("#summary"));
  await page.keyboard.press("End");
  await page.waitForSelector("#summary:not([hidden])");
  const summary = await page.textContent("#summary");
  assert.match(summary, /End of the match/);
  assert.equal(await page.locator("#summary tbody tr").count(), 4);
  assert.match(await page.textContent("#summary tbody tr:first-child"), /^1/);
  assert.match(summary, /no faults/);
  await screenshot(page, "replay-summary");
  await page.click("#summary .close");
  assert.ok(await page.isHidden("#summary"));
  await page.keyboard.press("Home");
  await page.keyboard.press("End");
  await page.waitForSelector("#summary:not([hidden])");
  await open("id=crash.jsonl");
  await page.keyboard.press("End");
  await page.waitForSelector("#summary:not([hidden])");
  assert.match(await page.textContent("#summary"), /crashed/);
});

test("charts over the match show time and distance to goal, and jump to a tick when clicked", async () => {
  await open("id=four.jsonl.gz&tick=0");
  const labels = await page.locator("#charts .chart-label").allTextContents();
  assert.equal(labels.length, 2);
  assert.match(labels[0], /time/);
  assert.match(labels[1], /distance to goal/);
  const last = Number((await page.textContent("#now")).match(/\/ (\d+)/)[1]);
  const chart = page.locator("#charts .chart-lines").first();
  const box = await chart.boundingBox();
  await chart.click({ position: { x: box.width / 2, y: box.height / 2 } });
  await page.waitForFunction(() => !/Tick 0 \//.test(document.querySelector("#now").textContent));
  const shown = Number((await page.textContent("#now")).match(/Tick (\d+)/)[1]);
  assert.ok(Math.abs(shown - last / 2) <= Math.max(2, last * 0.05), `clicked the middle, got tick ${shown} of ${last}`);
  const drawn = await page.evaluate(() => {
    const canvas = document.querySelector("#charts .chart-lines");
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let ink = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) ink++;
    return ink;
  });
  assert.ok(drawn > 100, "the lines are drawn");
});

test("the board fills the screen, zooms, and big boards stay readable on 1920×1080", async () => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  try {
    await open("id=four.jsonl.gz&tick=5");
    const fitted = (await page.locator(".board-svg").boundingBox()).width;
    assert.ok(fitted > 700, `the board is wider than the old 640 px cap (${fitted})`);
    await page.click("#zoom-in");
    await page.click("#zoom-in");
    const zoomed = (await page.locator(".board-svg").boundingBox()).width;
    assert.ok(zoomed > fitted * 1.5, `zoomed in (${zoomed} against ${fitted})`);
    assert.match(await page.textContent("#zoom-level"), /200 %/);
    await page.click("#zoom-fit");
    assert.ok(Math.abs((await page.locator(".board-svg").boundingBox()).width - fitted) < 2);

    // A cell of a 51×51 Domino board and a tile of a 10-player Labyrinth, on screen.
    await open("id=domino51.jsonl&tick=10");
    const domino = await page.locator(".board-svg").boundingBox();
    assert.ok(domino.width / 51 >= 14 && domino.height / 51 >= 14, `Domino cells of ${(domino.width / 51).toFixed(1)} px`);
    assert.ok(domino.y + domino.height <= 1080, "the whole Domino board is in the window");
    await screenshot(page, "replay-domino-51");
    await open("id=lab10.jsonl&tick=30");
    const labyrinth = await page.locator(".board-svg.labyrinth").boundingBox();
    const side = await page.evaluate(() => {
      const view = document.querySelector(".board-svg.labyrinth").viewBox.baseVal;
      return Math.max(view.width, view.height);
    });
    assert.ok(labyrinth.width >= 560, `the 10-player Labyrinth board is ${labyrinth.width} px wide (viewBox ${side})`);
    assert.ok(labyrinth.y + labyrinth.height <= 1080, "the whole Labyrinth board is in the window");
    assert.equal(await page.locator(".lab-panel tbody tr").count(), 10, "every seat in the side table");
    await screenshot(page, "replay-labyrinth-10");
  } finally {
    await page.setViewportSize({ width: 1400, height: 950 });
  }
});

/** The animations running on the board. */
const boardAnimations = () => page.evaluate(() =>
  document.getAnimations().filter((a) => a.effect && a.effect.target && a.effect.target.closest(".board-wrap")).length);

/**
 * Counts the motions as they start (all are the board's, made in motion.js), with the classes of
 * what moves: on a loaded machine a short animation can be over before a look at the running
 * ones.
 */
const countMotions = () => page.evaluate(() => {
  window.motions = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    window.motions.push([...this.classList]);
    return animate.apply(this, args);
  };
});

test("pawns, princesses, pushed lines and turned sub-boards move between ticks, unless motion is unwanted", async () => {
  await open("id=four.jsonl.gz&tick=0");
  await countMotions();
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 1 \//);
  // The pawn that moved slides.
  await page.waitForFunction(() => window.motions.length > 0);

  await open("id=lab10.jsonl&tick=30");
  await countMotions();
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 31 \//);
  // A pushed line slides, tile by tile, and the princess walks.
  await page.waitForFunction(() => window.motions.length > 5);

  // A Puoribor rotation turns its sub-board's walls into place.
  const puoribor = fs.readFileSync(path.join(fixtures.replays, "rotations.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const rotated = puoribor.find((l) => l.type === "tick" && l.action && l.action.kind === "rotate");
  assert.ok(rotated, "the fixture's rotator rotates");
  await open(`id=rotations.jsonl&tick=${rotated.tick - 1}`);
  await countMotions();
  await page.keyboard.press("ArrowRight");
  await expectNow(new RegExp(`Tick ${rotated.tick} /`));
  await page.waitForFunction(() => window.motions.some((classes) => classes.includes("turned")));

  await page.emulateMedia({ reducedMotion: "reduce" });
  await open("id=lab10.jsonl&tick=30");
  await page.keyboard.press("ArrowRight");
  await expectNow(/Tick 31 \//);
  await settle();
  assert.equal(await boardAnimations(), 0, "no motion for readers who asked for less");
  await page.emulateMedia({ reducedMotion: "no-preference" });

  // Too fast to see: no motion either.
  await open("id=lab10.jsonl&tick=30");
  await page.selectOption("select[aria-label=speed]", "32");
  await page.click("#step-forward");
  await expectNow(/Tick 31 \//);
  await settle();
  assert.equal(await boardAnimations(), 0, "no motion at 32 ticks a second");
});
