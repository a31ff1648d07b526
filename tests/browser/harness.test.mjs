// The harness itself: a wait that times out says what it waited for and what it saw, and a test
// file leaves no folder behind, also when it fails.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { browser, start, tempDir } from "./lib/harness.mjs";

let chrome;

before(async () => {
  chrome = await browser();
});

after(async () => {
  if (chrome) await chrome.close();
});

test("a wait that times out names its condition, the page's text and the processes' logs", async () => {
  const { page } = chrome;
  const talker = await start("a talking process", "sh", ["-c", "echo the last words of the process >&2; exec sleep 600"],
    { ready: (stdout, stderr) => stderr.includes("last words") });
  await page.setContent("<main><p>what the page shows</p></main>");
  // The element never comes: the wait can only end by its timeout.
  await assert.rejects(page.waitForSelector("#never", { timeout: 300 }), (e) => {
    assert.match(e.message, /timed out waiting for waitForSelector\("#never"\) for 300 ms/);
    assert.match(e.message, /what the page shows/);
    assert.match(e.message, /--- a talking process, running:\nthe last words of the process/);
    return true;
  });
  await assert.rejects(page.waitForFunction(() => window.neverSet === 1, null, { timeout: 300 }),
    /timed out waiting for waitForFunction\(\(\) => window.neverSet === 1\) for 300 ms/);
  await talker.stop();
});

test("a test file that fails leaves no folder behind", () => {
  // A test file of its own, in a process of its own, that makes a folder and fails.
  const failing = path.join(tempDir("child"), "failing.mjs");
  const harness = new URL("./lib/harness.mjs", import.meta.url).href;
  fs.writeFileSync(failing, `import { tempDir } from "${harness}";
const dir = tempDir("kept-until-exit");
console.log("DIR " + dir);
throw new Error("this test file fails on purpose");
`);
  let output;
  try {
    execFileSync(process.execPath, [failing], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    assert.fail("the child failed");
  } catch (e) {
    output = e.stdout;
  }
  const dir = /DIR (\S+)/.exec(output)?.[1];
  assert.ok(dir, `the child names its folder: ${output}`);
  assert.ok(!fs.existsSync(dir), `${dir} is left after the failed test file exited`);
  assert.ok(!fs.existsSync(path.dirname(dir)), "its root is gone too");
});
