// The game server's own viewer (`arbiter server --web`): two teams connect over TCP, robots
// fill the other seats, and the page, watched live from before the first game to the end of the
// session, ends with the scoreboard `arbiter server --standings` prints.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { ARBITER, arbiter, browser, screenshot, tempDir } from "./lib/harness.mjs";

/** Each client's lines reach the server this much later: the games last long enough to watch. */
const CLIENT_DELAY_MS = 15;

let dir;
let server;
let clients = [];
let proxy;
let chrome;
let web;

/** Starts the game server; resolves to its TCP port and its viewer's origin once both listen. */
function startServer(args) {
  const child = spawn(ARBITER, ["server", "labyrinth", "--listen", "127.0.0.1:0", "--web", "127.0.0.1:0", ...args],
    { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), 15000);
    const check = () => {
      const port = /listening on \S+:(\d+)/.exec(out);
      const origin = /web viewer on (http:\/\/[^/\s]+)/.exec(err);
      if (port && origin) {
        clearTimeout(timer);
        resolve({ child, port: Number(port[1]), origin: origin[1], log: () => err });
      }
    };
    child.stdout.on("data", (d) => { out += d; check(); });
    child.stderr.on("data", (d) => { err += d; check(); });
    child.on("exit", (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
}

/** A TCP proxy to `port` that holds each chunk a client sends for a moment. */
function slowProxy(port) {
  const proxyServer = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    upstream.pipe(client);
    client.on("data", (chunk) => {
      client.pause();
      setTimeout(() => { upstream.write(chunk); client.resume(); }, CLIENT_DELAY_MS);
    });
    client.on("end", () => upstream.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  return new Promise((resolve) => proxyServer.listen(0, "127.0.0.1", () => resolve(proxyServer)));
}

before(async () => {
  dir = tempDir("server");
  const accounts = path.join(dir, "teams.toml");
  for (const team of ["alpha", "bravo"]) {
    arbiter(["accounts", "add", "--file", accounts, team, "--password", "pw"]);
  }
  server = await startServer(["--accounts", accounts, "--db", path.join(dir, "server.db"),
    "--interval", "3", "--games", "2", "--min-players", "4"]);
  web = server.origin;
  proxy = await slowProxy(server.port);
  chrome = await browser();
});

after(async () => {
  for (const client of clients) client.kill("SIGKILL");
  if (proxy) proxy.close();
  if (server) server.child.kill("SIGTERM");
  if (chrome) await chrome.close();
  assert.deepEqual(chrome ? chrome.errors : [], [], "no script error on any page");
});

function connectBot(team) {
  const child = spawn(ARBITER, ["bot", "labyrinth", "greedy", "--connect", `127.0.0.1:${proxy.address().port}`, "--team", team],
    { stdio: "ignore", env: { ...process.env, ARBITER_PASSWORD: "pw" } });
  clients.push(child);
}

test("the server's page follows a session live to its end and ranks as --standings", async () => {
  const { page } = chrome;
  await page.goto(`${web}/`);
  await page.click("#servers a");
  await page.waitForSelector("#countdown");
  assert.match(await page.textContent("#mode"), /TEST/);
  assert.match(await page.textContent("#next"), /level 1 · test/);
  // The teams of the accounts file are listed before they log in.
  await page.waitForFunction(() => document.querySelectorAll("#team-list tbody tr").length === 2);
  assert.match(await page.textContent("#team-list"), /alpha.*not seen.*bravo.*not seen/s);
  connectBot("alpha");
  connectBot("bravo");
  await page.waitForFunction(() => document.querySelectorAll("#team-list tbody tr").length === 2);
  // The first game, being played: its seats in order with the rule, and a link to watch it.
  await page.waitForSelector("#running-games a", { timeout: 20000 });
  const running = await page.textContent("#running-games");
  assert.match(running, /ascending test score/);
  assert.match(running, /robot_2.*robot_3/s);
  assert.match(await page.textContent("#team-list"), /playing/);
  await screenshot(page, "server-running");
  // Watching it live in the replay viewer, then back.
  const watch = await page.getAttribute("#running-games a", "href");
  const viewer = await chrome.page.context().newPage();
  await viewer.goto(`${web}${watch}`);
  await viewer.waitForSelector("#now .tick-no");
  assert.match(await viewer.textContent(".topbar"), /labyrinth server/);
  await viewer.close();
  // The end of the session, seen on the page by itself.
  await page.waitForSelector("#over", { timeout: 120000 });
  await page.waitForFunction(() => document.querySelectorAll("#finished-games tbody tr").length === 2);
  await screenshot(page, "server-over");
  assert.match(await page.textContent("#countdown"), /session is over/);
  const finished = await page.$$eval("#finished-games tbody tr td:first-child", (cells) => cells.map((c) => c.textContent));
  assert.deepEqual(finished, ["2", "1"]);
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
