// The game server's own viewer (`arbiter server --web`): two teams connect over TCP, robots
// fill the other seats, and the page, watched live from before the first game to the end of the
// session, ends with the scoreboard `arbiter server --standings` prints.
//
// Nothing here waits on the machine's speed: the games are short (a hand-made level of three
// rounds), start as soon as both teams are idle, and each stays on the page for as long as the
// test looks at it, because the clients' replies pass through a gate the test opens.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { ARBITER, arbiter, browser, repo, screenshot, start, tempDir } from "./lib/harness.mjs";

/** Four seats, three rounds: a game of twelve turns. */
const LEVEL = path.join(repo, "tests/data/golden/four-seats.level");

let dir;
let server;
let gate;
let chrome;
let web;

/** Starts the game server; resolves to its TCP port and its viewer's origin once both listen. */
async function startServer(args) {
  const started = await start("arbiter server", ARBITER,
    ["server", "labyrinth", "--listen", "127.0.0.1:0", "--web", "127.0.0.1:0", ...args], {
      ready: (stdout, stderr) => {
        const port = /listening on \S+:(\d+)/.exec(stdout);
        const origin = /web viewer on (http:\/\/[^/\s]+)/.exec(stderr);
        return port && origin && { port: Number(port[1]), origin: origin[1] };
      },
    });
  return { ...started, ...started.ready };
}

/**
 * A TCP proxy to `port` that lets each client log in, then holds what it sends during game n
 * until `release(n)`: the game waits for the held reply, so it is on the page until then. A
 * client's game is known from what the server sends it: each game ends with a SCORE line.
 */
async function gateTo(port) {
  let released = 0;
  const held = [];
  const proxy = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    let answered = false;
    let game = 1;
    let partial = "";
    upstream.on("data", (data) => {
      answered = true;
      const lines = (partial + data).split("\n");
      partial = lines.pop();
      game += lines.filter((line) => line.startsWith("SCORE ")).length;
      client.write(data);
    });
    client.on("data", (chunk) => {
      if (!answered || game <= released) {
        upstream.write(chunk);
        return;
      }
      client.pause();
      held.push({ game: () => game, pass: () => { upstream.write(chunk); client.resume(); } });
    });
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    port: proxy.address().port,
    release(n) {
      released = n;
      for (const chunk of held.splice(0)) {
        if (chunk.game() <= released) chunk.pass();
        else held.push(chunk);
      }
    },
    close: () => proxy.close(),
  };
}

before(async () => {
  dir = tempDir("server");
  const accounts = path.join(dir, "teams.toml");
  for (const team of ["alpha", "bravo"]) {
    arbiter(["accounts", "add", "--file", accounts, team, "--password", "pw"]);
  }
  // The interval is never waited for: a game starts when both teams are idle. A held reply
  // stays within its time limit however long the page takes to look at the game.
  server = await startServer(["--accounts", accounts, "--db", path.join(dir, "server.db"),
    "--level-file", LEVEL, "--interval", "3600", "--start-when-idle", "2", "--games", "2",
    "--min-players", "4", "--time-per-reply-ms", "600000"]);
  web = server.origin;
  gate = await gateTo(server.port);
  chrome = await browser();
});

after(async () => {
  if (gate) gate.release(Infinity);
  if (gate) gate.close();
  if (server) await server.stop();
  if (chrome) await chrome.close();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

function connectBot(team) {
  return start(`the bot of ${team}`, ARBITER,
    ["bot", "labyrinth", "greedy", "--connect", `127.0.0.1:${gate.port}`, "--team", team],
    { env: { ARBITER_PASSWORD: "pw" } });
}

/**
 * Answers the page's requests for the finished games with the server's answers, but keeps the
 * answer listing one game until the one listing two has reached the page: the older answer
 * comes last, as it can on a busy network. Resolves once that late answer has been read.
 */
function answerLastTheListOfOne(page) {
  let givenTwo;
  const two = new Promise((resolve) => (givenTwo = resolve));
  let late;
  const read = new Promise((resolve) => {
    page.on("requestfinished", (request) => { if (request === late) resolve(); });
  });
  page.route("**/api/servers/labyrinth/games", async (route) => {
    const response = await route.fetch();
    const count = (await response.json()).length;
    if (count === 1) {
      await two;
      late = route.request();
    }
    await route.fulfill({ response });
    if (count === 2) givenTwo();
  });
  return read;
}

/** The first cells of the rows of table `id`. */
const firstCells = (page, id) =>
  page.$$eval(`#${id} tbody tr td:first-child`, (cells) => cells.map((c) => c.textContent));

test("the server's page follows a session live to its end and ranks as --standings", async () => {
  const { page } = chrome;
  const lateList = answerLastTheListOfOne(page);
  await page.goto(`${web}/`);
  await page.click("#servers a");
  await page.waitForSelector("#countdown");
  assert.match(await page.textContent("#mode"), /TEST/);
  assert.match(await page.textContent("#next"), /level 1 · test/);
  // The teams of the accounts file are listed before they log in.
  await page.waitForFunction(() => document.querySelectorAll("#team-list tbody tr").length === 2);
  assert.match(await page.textContent("#team-list"), /alpha.*not seen.*bravo.*not seen/s);
  await connectBot("alpha");
  await connectBot("bravo");
  // The first game, waiting for its first reply: its seats in order with the rule, and a link
  // to watch it.
  await page.waitForSelector("#running-games a");
  const running = await page.textContent("#running-games");
  assert.match(running, /ascending test score/);
  assert.match(running, /robot_2.*robot_3/s);
  await page.waitForFunction(() => /playing.*playing/s.test(document.querySelector("#team-list").textContent));
  await screenshot(page, "server-running");
  // Watching it live in the replay viewer, then back.
  const watch = await page.getAttribute("#running-games a", "href");
  const viewer = await chrome.page.context().newPage();
  await viewer.goto(`${web}${watch}`);
  await viewer.waitForSelector("#now .tick-no");
  assert.match(await viewer.textContent(".topbar"), /labyrinth server/);
  await viewer.close();
  // The first game is played to its end; the second starts and waits for its first reply.
  gate.release(1);
  await page.waitForFunction(() => document.querySelector("#running-games tbody tr td")?.textContent === "2");
  // The end of the session, seen on the page by itself.
  gate.release(2);
  await page.waitForSelector("#over");
  await page.waitForFunction(() => document.querySelectorAll("#finished-games tbody tr").length === 2);
  await screenshot(page, "server-over");
  assert.match(await page.textContent("#countdown"), /session is over/);
  assert.deepEqual(await firstCells(page, "finished-games"), ["2", "1"]);
  // The list of one game, asked for after the first game and answered after the list of two,
  // changes nothing: the page keeps the newest.
  await lateList;
  await page.evaluate(() => new Promise((r) => setTimeout(() => requestAnimationFrame(r), 0)));
  assert.deepEqual(await firstCells(page, "finished-games"), ["2", "1"], "an older answer came last");
  const shown = await page.$$eval("#scores tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  const printed = arbiter(["server", "labyrinth", "--standings", "--db", path.join(dir, "server.db")])
    .trim().split("\n").slice(1).map((line) => line.trim().split(/\s+/));
  assert.equal(printed.length, 2);
  assert.deepEqual(shown, printed, "the page's scoreboard is the standings");
});

test("an unknown game of the server is a 404 that says so", async () => {
  const response = await fetch(`${web}/api/servers/labyrinth/games/999`);
  assert.equal(response.status, 404);
  assert.match((await response.json()).error, /has no game 999/);
  const { page } = chrome;
  await page.goto(`${web}/server.html?game=chess`);
  await page.waitForSelector(".problem");
  assert.match(await page.textContent(".problem"), /no game server of "chess"/);
});
