// What every browser test file needs: the arbiter binary, replays and a tournament made with
// it, an `arbiter serve` on a free port, and headless Chromium from Debian's package.
//
// Nothing is left behind: the folders of a test file, and the program cache of the `arbiter`
// processes it starts, live under one root of its process, removed when the process exits
// (tests passed or failed), with the processes it started; a root whose process is gone
// (killed) is removed by the next test file. And a wait that times
// out says what it waited for and what it saw: the page's address and text, and the last
// lines of every process the file started.

import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, "../../..");
export const shots = path.join(repo, "test-output", "browser");

export const ARBITER = process.env.ARBITER_BIN || path.join(repo, "target/release/arbiter");

/** The start of every test process's root, as the Rust tests' (crates/testdir) name theirs. */
const ROOT_PREFIX = "arbiter-test-";

/** Removes the roots of test processes that are gone, the Rust tests' included. */
function sweepRoots() {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const pid = new RegExp(`^${ROOT_PREFIX}.*-(\\d+)$`).exec(name)?.[1];
    if (pid && !fs.existsSync(`/proc/${pid}`)) {
      fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}

sweepRoots();
const root = path.join(os.tmpdir(), `${ROOT_PREFIX}browser-${process.pid}`);
fs.mkdirSync(root, { recursive: true });
// The program cache of the tournaments run here (and Chromium's) goes with the root too.
process.env.XDG_CACHE_HOME = path.join(root, "cache");

/** The processes started through `start`, ended when the test process exits. */
const started = [];

process.on("exit", () => {
  for (const { child } of started) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
});

/** A fresh folder under this process's root. */
export function tempDir(name) {
  return fs.mkdtempSync(path.join(root, `${name}-`));
}

export function arbiter(args, options = {}) {
  return execFileSync(ARBITER, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });
}

/** The last `count` lines of `text`. */
function tail(text, count = 40) {
  const lines = text.trimEnd().split("\n");
  return (lines.length > count ? [`… (${lines.length - count} lines before)`] : [])
    .concat(lines.slice(-count)).join("\n");
}

/**
 * Starts `command` with `args` (its output kept for the explanation of a failed wait, under
 * `name`); resolves to {child, stdout(), stderr(), stop()} once `ready(stdout, stderr)` returns
 * something, with that something as `ready`. `stop()` ends it and resolves when it has exited.
 */
export function start(name, command, args, { env = {}, ready = () => true, stdio = "pipe", within = 30000 } = {}) {
  const child = spawn(command, args, { stdio: ["ignore", stdio, stdio], env: { ...process.env, ...env } });
  const out = { stdout: "", stderr: "" };
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const handle = {
    name,
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  started.push(handle);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(
      `${name} was not ready within ${within} ms; it wrote:\n${tail(out.stdout)}\n${tail(out.stderr)}`)), within);
    const check = () => {
      const seen = ready(out.stdout, out.stderr);
      if (seen) {
        clearTimeout(timer);
        resolve({ ...handle, ready: seen });
      }
    };
    for (const stream of ["stdout", "stderr"]) {
      child[stream]?.on("data", (d) => { out[stream] += d; check(); });
    }
    child.on("error", (e) => reject(new Error(`cannot start ${name}: ${e.message}`)));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${signal || code}) before it was ready:\n${tail(out.stderr)}`));
    });
    check();
  });
}

/** What the processes this file started have written lately. */
function processLogs() {
  return started.map((p) => {
    const state = p.child.exitCode !== null || p.child.signalCode !== null
      ? `exited (${p.child.signalCode || p.child.exitCode})` : "running";
    const text = [p.stdout(), p.stderr()].filter((t) => t.trim()).map((t) => tail(t)).join("\n");
    return `--- ${p.name}, ${state}:\n${text || "(nothing written)"}`;
  }).join("\n");
}

/**
 * Starts `arbiter ARGS... --addr 127.0.0.1:0` (with `env` added to its environment); resolves
 * to {url, origin, stop} once it listens.
 */
export async function serve(args, { env = {} } = {}) {
  const server = await start(`arbiter ${args[0]}`, ARBITER, [...args, "--addr", "127.0.0.1:0"], {
    env,
    ready: (stdout) => /http:\/\/\S+/.exec(stdout)?.[0],
  });
  const url = new URL(server.ready);
  return { url, origin: url.origin, stop: server.stop, log: server.stderr };
}

/** Calls of a page that wait, and on what: their first argument names it. */
const WAITING = ["waitForSelector", "waitForFunction", "waitForURL", "waitForEvent", "waitForLoadState",
  "goto", "click", "textContent", "innerText", "getAttribute", "inputValue", "selectOption", "fill",
  "focus", "hover", "check", "press"];

/** A condition as a failed wait names it: a selector, or the source of a function. */
function condition(method, args) {
  const [what, , options] = args;
  const named = typeof what === "function" ? what.toString() : JSON.stringify(what);
  const timeout = (method === "waitForFunction" ? options : args[1])?.timeout;
  return `${method}(${named})${timeout ? ` for ${timeout} ms` : ""}`;
}

/** The page's address and text, as far as it still answers. */
async function pageState(page) {
  const text = await Promise.race([
    page.evaluate(() => document.body ? document.body.innerText : "(no body)"),
    new Promise((resolve) => setTimeout(() => resolve("(the page did not answer within 5 s)"), 5000)),
  ]).catch((e) => `(cannot read the page: ${e.message})`);
  return `the page ${page.url()} shows:\n${tail(text, 60)}`;
}

/** Makes every wait of `page` that times out say what it waited for and what it saw. */
function explainTimeouts(page, errors) {
  if (page.__explained) return;
  page.__explained = true;
  for (const method of WAITING) {
    const original = page[method].bind(page);
    page[method] = async (...args) => {
      try {
        return await original(...args);
      } catch (e) {
        if (e?.name !== "TimeoutError") throw e;
        const scriptErrors = errors.length ? `\nscript errors: ${errors.join("; ")}` : "";
        throw new Error(`timed out waiting for ${condition(method, args)}\n${await pageState(page)}` +
          `${scriptErrors}\n${processLogs()}\n(${e.message.split("\n")[0]})`);
      }
    };
  }
  return page;
}

const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
];

/** Chromium with a fresh profile; `close()` also removes the profile. */
export async function browser() {
  const profile = tempDir("profile");
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 950 },
  });
  const errors = [];
  context.on("page", (page) => explainTimeouts(page, errors));
  const page = context.pages()[0] || (await context.newPage());
  explainTimeouts(page, errors);
  page.on("pageerror", (e) => errors.push(e.message));
  return {
    page,
    errors,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page, name) {
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

/**
 * The replay page's steps for a test file, on `page()` and the server `origin()` its `before`
 * hook sets up: open a replay, wait for a drawn frame, wait for the tick line to match.
 */
export function replayPageSteps(page, origin) {
  return {
    async open(query) {
      await page().goto(`${origin()}/replay.html?${query}`);
      await page().waitForSelector("#now .tick-no, .problem");
    },
    /** Waits for the frame that draws what the last action changed. */
    settle: () => page().evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))),
    /** Waits until the tick line matches: the page draws on the next animation frame. */
    async expectNow(pattern) {
      await page().waitForFunction((source) => new RegExp(source).test(document.querySelector("#now").textContent),
        pattern.source, { timeout: 5000 }).catch(() => {});
      assert.match(await page().textContent("#now"), pattern);
    },
  };
}
