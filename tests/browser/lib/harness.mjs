// What every browser test file needs: the arbiter binary, replays and a tournament made with
// it, an `arbiter serve` on a free port, and headless Chromium from Debian's package.

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

export function tempDir(name) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `arbiter-browser-${name}-`));
}

export function arbiter(args, options = {}) {
  return execFileSync(ARBITER, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });
}

/**
 * Starts `arbiter ARGS... --addr 127.0.0.1:0` (with `env` added to its environment); resolves
 * to {url, stop} once it listens.
 */
export function serve(args, { env = {} } = {}) {
  const child = spawn(ARBITER, [...args, "--addr", "127.0.0.1:0"],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`arbiter did not start: ${stderr}`)), 15000);
    child.stdout.on("data", (d) => {
      out += d;
      const match = /http:\/\/\S+/.exec(out);
      if (match) {
        clearTimeout(timer);
        const url = new URL(match[0]);
        resolve({ url, origin: url.origin, stop: () => child.kill("SIGTERM") });
      }
    });
    child.on("exit", (code) => reject(new Error(`arbiter exited (${code}): ${stderr}`)));
  });
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
  const page = context.pages()[0] || (await context.newPage());
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
