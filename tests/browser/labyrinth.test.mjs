// The Labyrinth board in a real browser: the game of the spec's example session (§9) written
// out as a replay, stepped through tick by tick; crowded cells; and a game played by the binary.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { arbiter, browser, replayPageSteps, repo, screenshot, serve, tempDir } from "./lib/harness.mjs";

const A = [12, 10, 14, 4, 5, 15, 5, 5, 9, 10, 11, 1];

function state(round, toMove, fields, displays, positions, extras, scores, targets, codes = ["OK", "OK"]) {
  return { round, to_move: toMove, fields, displays, positions, extras, scores, targets, codes };
}

function tick(n, player, action, st) {
  const bot = { received: [], sent: [], error: null, log: "", offline: false, time_ms: null, bank_ms: 0 };
  return { type: "tick", tick: n, player, action, state: st, bots: st.positions.map(() => ({ ...bot })) };
}

/** §9: alice scores display 0, bob walks down column 3, alice scores display 1 and ends it. */
function exampleSession(players = ["alice", "bob"]) {
  const header = {
    type: "header",
    format: { major: 1, minor: 0 },
    game: "labyrinth",
    settings: {
      level: 0, game_id: 1, seed: null, width: 4, height: 3, max_tick: 2, blocked: [[1, 1]],
      displays: [[3, 2], [0, 2]], tiles: A, starts: [[0, 0], [3, 0]], targets: [[0, 1], [1, 0]],
    },
    seed: 0,
    players: players.map((name) => ({ name, kind: "tcp", command: null })),
  };
  const turn = (c, p, k, t, goto, code = "OK") => ({ kind: "turn", push: { c, p, k, t }, goto, code });
  const ticks = [
    tick(0, null, { kind: "start" },
      state(0, 0, A, [[0, 3, 2], [1, 0, 2]], [[0, 0], [3, 0]], [15, 15], [0, 0], [0, 1])),
    tick(1, 0, turn(0, 1, 2, 15, [0, 2]),
      state(0, 1, [12, 10, 14, 4, 5, 15, 5, 5, 15, 9, 10, 11], [[1, 1, 2]], [[0, 2], [3, 0]], [1, 15], [1, 0], [1, 1])),
    tick(2, 1, turn(1, 1, 3, 15, [3, 2]),
      state(1, 0, [12, 10, 14, 15, 5, 15, 5, 4, 15, 9, 10, 5], [[1, 1, 2]], [[0, 2], [3, 2]], [1, 11], [1, 0], [1, 1])),
    tick(3, 0, turn(1, 0, 0, 4, [1, 2]),
      state(1, null, [5, 10, 14, 15, 15, 15, 5, 4, 4, 9, 10, 5], [], [[0, 1], [3, 2]], [12, 11], [2, 0], [null, null])),
  ];
  const result = {
    type: "result", ticks: 3, reason: "goal", scores: [2, 0], placement: [1, 2],
    bots: players.map((name) => ({ name, errors: 0, timeouts: 0, crashed: false })),
  };
  return [header, ...ticks, result];
}

/** Three more seats on alice's cell, and a void turn with a refused push. */
function crowded() {
  const lines = exampleSession(["alice", "bob", "carol", "dave", "erin"]);
  const extend = (st) => {
    st.positions.push([0, 0], [0, 0], [0, 0]);
    st.extras.push(15, 15, 15);
    st.scores.push(0, 0, 0);
    st.targets.push(1, 0, 1);
    st.codes.push("OK", "BLOCKED_LINE", "OK");
  };
  const header = lines[0];
  header.settings.starts.push([0, 0], [0, 0], [0, 0]);
  header.settings.targets.push([1, 0], [0, 1], [1, 0]);
  const ticks = lines.slice(1, 2).map((t) => {
    extend(t.state);
    t.bots.push({ ...t.bots[0] }, { ...t.bots[0] }, { ...t.bots[0] });
    return t;
  });
  const voidTurn = structuredClone(ticks[0]);
  voidTurn.tick = 1;
  voidTurn.player = 0;
  voidTurn.action = { kind: "turn", push: null, goto: null, code: "BLOCKED_LINE" };
  voidTurn.state.codes[0] = "BLOCKED_LINE";
  voidTurn.state.to_move = 1;
  return [header, ...ticks, voidTurn];
}

/** The first tick of a 10-seat match, the most Labyrinth has: every extra seat on alice's cell. */
function tenSeats() {
  const names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];
  const [header, first] = exampleSession(names);
  const more = names.length - 2;
  for (let i = 0; i < more; i++) {
    header.settings.starts.push([0, 0]);
    header.settings.targets.push([1, 0]);
    first.state.positions.push([0, 0]);
    first.state.extras.push(15);
    first.state.scores.push(0);
    first.state.targets.push(0);
    first.state.codes.push("OK");
    first.bots.push({ ...first.bots[0] });
  }
  const result = {
    type: "result", ticks: 0, reason: "tick_limit", scores: names.map(() => 0), placement: names.map(() => 1),
    bots: names.map((name) => ({ name, errors: 0, timeouts: 0, crashed: false })),
  };
  return [header, first, result];
}

const write = (file, lines) => fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

let dir;
let server;
let chrome;
let page;

before(async () => {
  dir = tempDir("labyrinth");
  const replays = path.join(dir, "replays");
  fs.mkdirSync(replays);
  write(path.join(replays, "example.jsonl"), exampleSession());
  write(path.join(replays, "crowded.jsonl"), crowded());
  write(path.join(replays, "ten.jsonl"), tenSeats());
  server = await serve(["serve", "--replays", replays]);
  chrome = await browser();
  page = chrome.page;
});

after(async () => {
  if (chrome) await chrome.close();
  if (server) await server.stop();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

const { open, expectNow } = replayPageSteps(() => page, () => server.origin);

const count = (selector) => page.locator(selector).count();
const panel = (seat, column) => page.textContent(`.lab-panel tr.seat[data-seat="${seat}"] .${column}`);

test("the example session is drawn tick by tick: tiles, displays, princesses, pushes, walks, the panel", async () => {
  await open("id=example.jsonl");
  await expectNow(/Tick 0 \/ 3/);
  assert.equal(await count(".board-svg.labyrinth .corridor"), 12, "one corridor per tile");
  assert.equal(await count(".board-svg.labyrinth .princess"), 2);
  assert.deepEqual(await page.locator(".display .display-label").allTextContents(), ["0", "1"]);
  assert.equal(await count(".blocked"), 1);
  assert.equal(await count(".lock"), 4, "the blocked cell's row and column are locked at both ends");
  // Each seat's current target is ringed in its colour: alice chases 0, bob chases 1.
  assert.equal(await count('.display[data-display="0"] .target-ring[data-seat="0"]'), 1);
  assert.equal(await count('.display[data-display="1"] .target-ring[data-seat="1"]'), 1);
  assert.equal(await panel(0, "score"), "0");
  assert.equal(await panel(0, "target"), "0");
  assert.equal(await count(".push"), 0);

  await page.click("#step-forward");
  await expectNow(/Tick 1 \/ 3 · alice PUSH 0 1 2 15, GOTO 0 2/);
  assert.deepEqual(await page.locator(".display .display-label").allTextContents(), ["1"], "display 0 was used");
  assert.equal(await panel(0, "score"), "1");
  assert.equal(await panel(1, "score"), "0");
  assert.equal(await panel(0, "target"), "1");
  assert.equal(await page.getAttribute(".lab-panel tr.seat[data-seat='0'] .extra", "data-tile"), "1", "the fallen tile is alice's extra");
  assert.equal(await page.getAttribute(".push", "data-push"), "PUSH 0 1 2 15");
  assert.equal(await page.getAttribute(".push .tile-icon", "data-tile"), "15");
  assert.equal(await page.getAttribute(".goto", "data-goto"), "0 2");
  // Alice walked from (0,0) down column 0 to (0,2): a path of three cells.
  const walked = await page.getAttribute(".goto polyline", "points");
  assert.equal(walked.split(" ").length, 3);
  await screenshot(page, "labyrinth-example-tick1");

  await page.click("#step-forward");
  await expectNow(/Tick 2 \/ 3 · bob PUSH 1 1 3 15, GOTO 3 2/);
  assert.equal(await panel(1, "score"), "0");
  assert.equal(await page.getAttribute(".lab-panel tr.seat[data-seat='1'] .extra", "data-tile"), "11");

  await page.keyboard.press("End");
  await expectNow(/Tick 3 \/ 3 · alice PUSH 1 0 0 4, GOTO 1 2/);
  assert.equal(await count(".display"), 0, "the last display was used");
  assert.equal(await panel(0, "score"), "2");
  assert.equal(await panel(0, "target"), "—");
  assert.match(await page.textContent(".lab-info"), /0 of 2 displays left/);
  await screenshot(page, "labyrinth-example-end");
});

test("princesses sharing a cell all stay visible, and a refused push is shown in red", async () => {
  await open("id=crowded.jsonl&tick=0");
  await expectNow(/Tick 0 \//);
  assert.equal(await count(".princess"), 5);
  const boxes = await page.locator(".princess circle").evaluateAll((circles) =>
    circles.map((c) => [Number(c.getAttribute("cx")), Number(c.getAttribute("cy")), Number(c.getAttribute("r"))]));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [x1, y1, r1] = boxes[i];
      const [x2, y2, r2] = boxes[j];
      assert.ok(Math.hypot(x1 - x2, y1 - y2) >= Math.min(r1, r2), `princesses ${i} and ${j} do not hide each other`);
    }
  }
  // Display 1 is the target of bob, carol and erin: one ring split in three arcs.
  assert.equal(await count('.display[data-display="1"] .target-ring'), 3);
  assert.equal(await panel(3, "code"), "BLOCKED_LINE");
  assert.ok(await page.locator('.lab-panel tr.seat[data-seat="3"] .code.bad').isVisible());
  assert.equal(await page.locator('.lab-panel tr.seat[data-seat="4"] .code.bad').count(), 0);
  await page.click("#step-forward");
  await expectNow(/alice no push \(BLOCKED_LINE\)/);
  assert.equal(await count(".push"), 0);
  assert.equal(await count(".goto"), 0);
  await screenshot(page, "labyrinth-crowded");
});

test("a game played by arbiter is drawn to its end", async (t) => {
  const help = arbiter(["play", "--help"]);
  if (!/labyrinth/.test(help)) {
    t.skip("this arbiter does not play labyrinth yet");
    return;
  }
  const replays = path.join(dir, "played");
  fs.mkdirSync(replays, { recursive: true });
  const file = path.join(replays, "played.jsonl");
  arbiter(["play", "labyrinth", "--seed", "3", "--players", "10", "--replay", file,
    ...Array.from({ length: 10 }, () => ["--bot", "builtin:greedy"]).flat()]);
  const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const ticks = lines.filter((l) => l.type === "tick");
  const settings = lines[0].settings;
  const local = await serve(["serve", "--replays", replays]);
  try {
    await page.goto(`${local.origin}/replay.html?id=played.jsonl`);
    await page.waitForSelector("#now .tick-no");
    assert.equal(await count(".corridor"), settings.width * settings.height);
    assert.equal(await count(".princess"), 10);
    assert.equal(await count(".display"), ticks[0].state.displays.length);
    assert.equal(await count(".lock"), 4 * settings.blocked.length);
    // The first tick where someone scores: its display is gone and the panel counts the point.
    const scoring = ticks.findIndex((tk, i) => i > 0 && tk.state.scores.some((v, s) => v > ticks[i - 1].state.scores[s]));
    assert.ok(scoring > 0, "someone scores in the game");
    await page.goto(`${local.origin}/replay.html?id=played.jsonl&tick=${scoring}`);
    await page.waitForSelector("#now .tick-no");
    const seat = ticks[scoring].player;
    assert.equal(await panel(seat, "score"), String(ticks[scoring].state.scores[seat]));
    assert.equal(await count(".display"), ticks[scoring].state.displays.length);
    assert.equal(await count(".goto"), 1);
    await page.keyboard.press("End");
    await page.waitForFunction(() => /·/.test(document.querySelector(".match-head .meta").textContent));
    await screenshot(page, "labyrinth-played");
  } finally {
    local.stop();
  }
});

test("a game of the 2017 final, imported from a client's log, is drawn with its note", async (t) => {
  const source = path.join(repo, "../shared/data/graphisoft-2017-final/game_01.log");
  if (!fs.existsSync(source)) {
    t.skip(`notice: ${source} is absent; the imported final game is not shown`);
    return;
  }
  const replays = path.join(dir, "final");
  fs.mkdirSync(replays, { recursive: true });
  const file = path.join(replays, "game_01.jsonl");
  arbiter(["replay", "import", "--format", "graphisoft-log", source, "-o", file]);
  const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const ticks = lines.filter((l) => l.type === "tick");
  const local = await serve(["serve", "--replays", replays]);
  try {
    await page.goto(`${local.origin}/replay.html?id=game_01.jsonl&tick=100`);
    await page.waitForSelector("#now .tick-no");
    assert.equal(await count(".princess"), 10);
    assert.equal(await count(".display"), ticks[100].state.displays.length);
    assert.match(await page.textContent(".lab-info"), /reconstructed to fit what they scored, not observed/);
    for (let seat = 0; seat < 10; seat++) {
      assert.equal(await panel(seat, "score"), String(ticks[100].state.scores[seat]));
    }
    await screenshot(page, "labyrinth-final-game-01");
  } finally {
    local.stop();
  }
});

test("the keys 0 to 9 choose each of ten seats, numbered as on the page", async () => {
  await open("id=ten.jsonl&tick=0");
  assert.equal(await page.locator(".players .player").count(), 10);
  for (const seat of [9, 0, 5]) {
    await page.keyboard.press(String(seat));
    await page.waitForFunction((s) => document.querySelector("#debug-player").value === String(s), seat, { timeout: 5000 });
    assert.equal(await page.textContent(".players .player.selected .swatch"), String(seat));
  }
});
