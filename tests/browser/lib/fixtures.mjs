// Replays for the browser tests, made by the binary under test (and a few edited by hand: a
// 10,000-tick one, one from a newer format, one of a game this viewer does not know).

import fs from "node:fs";
import path from "node:path";
import { arbiter } from "./harness.mjs";

/**
 * A Quoridor bot in sh that logs and draws on every turn, answers an illegal move on its first
 * turn, a malformed one on its second, and exits on its fourth.
 */
const CRASHING_BOT = `#!/bin/sh
read n; read id; read m; i=0; while [ $i -lt $n ]; do read l; i=$((i+1)); done
t=0
while read tick; do
  [ "$tick" = "-1" ] && exit 0
  i=0; while [ $i -lt $n ]; do read l; i=$((i+1)); done
  read f; i=0; while [ $i -lt $f ]; do read l; i=$((i+1)); done
  read empty
  echo "tick $tick thinking" >&2
  echo "#draw cell 4 4 red target" >&2
  echo "#draw arrow 4 0 4 4 blue" >&2
  echo "#draw wobble 1 2" >&2
  if [ $t -eq 1 ]; then echo "hello"; elif [ $t -eq 3 ]; then echo "giving up" >&2; exit 3; else echo "4 4"; fi
  t=$((t+1))
done
`;

export function makeReplays(dir) {
  const bot = path.join(dir, "crashing-bot.sh");
  fs.writeFileSync(bot, CRASHING_BOT, { mode: 0o755 });
  const replays = path.join(dir, "replays");
  fs.mkdirSync(replays, { recursive: true });
  const at = (name) => path.join(replays, name);
  arbiter(["play", "quoridor", "--seed", "9", "--bot", bot, "--bot", "builtin:runner", "--replay", at("crash.jsonl")]);
  arbiter(["play", "quoridor", "--seed", "5", "--players", "4", "--bot", "builtin:runner", "--bot", "builtin:blocker",
    "--bot", "builtin:random", "--bot", "builtin:runner", "--replay", at("four.jsonl.gz")]);
  arbiter(["play", "puoribor", "--seed", "4", "--bot", "builtin:runner", "--bot", "builtin:rotator", "--replay", at("puoribor.jsonl")]);
  arbiter(["play", "domino", "--seed", "4", "--bot", "builtin:random", "--bot", "builtin:random", "--replay", at("domino.jsonl")]);
  makeLong(at("crash.jsonl"), at("long.jsonl"), 10000);
  const header = JSON.parse(fs.readFileSync(at("crash.jsonl"), "utf8").split("\n")[0]);
  fs.writeFileSync(at("future.jsonl"), JSON.stringify({ ...header, format: { major: 7, minor: 2 } }) + "\n");
  const lines = fs.readFileSync(at("crash.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  lines[0].game = "tetris";
  fs.writeFileSync(at("unknown-game.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  makeDrawnOnPawns(at("crash.jsonl"), at("drawn-on-pawns.jsonl"));
  return { dir, replays, bot };
}

/** The referee's marker after a log it cut (crates/referee, `LOG_TRIMMED`). */
export const LOG_TRIMMED = "...\n[[bot log trimmed to 2KB]]";

/**
 * `source` with player 0's stderr of tick 1 drawing on both pawns (an arrow at one, text and a
 * label on the other), and its stderr of tick 2 cut by the referee at 2000 characters.
 */
function makeDrawnOnPawns(source, out) {
  const lines = fs.readFileSync(source, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const ticks = lines.filter((l) => l.type === "tick");
  const [mine, theirs] = ticks[1].state.pawns;
  ticks[1].bots[0].log = [
    `#draw arrow ${mine[0]} ${mine[1] + 3} ${theirs[0]} ${theirs[1]} red`,
    `#draw text ${mine[0]} ${mine[1]} my pawn`,
    `#draw cell ${theirs[0]} ${theirs[1]} blue theirs`,
    "",
  ].join("\n");
  ticks[2].bots[0].log = "x".repeat(2000) + LOG_TRIMMED;
  fs.writeFileSync(out, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}

/** A replay of `count` ticks: the ticks of `source` over and over, numbered on. */
export function makeLong(source, out, count) {
  const lines = fs.readFileSync(source, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const ticks = lines.filter((l) => l.type === "tick" && l.tick > 0);
  const result = lines.find((l) => l.type === "result");
  const output = [JSON.stringify(lines[0]), JSON.stringify(lines[1])];
  for (let n = 1; n < count; n++) {
    const tick = structuredClone(ticks[(n - 1) % ticks.length]);
    tick.tick = n;
    tick.state.tick = n;
    for (const bot of tick.bots) bot.offline = false;
    output.push(JSON.stringify(tick));
  }
  output.push(JSON.stringify({ ...result, ticks: count - 1 }));
  fs.writeFileSync(out, output.join("\n") + "\n");
}

/** A tournament of three robots, played to its end, in `dir`/t.db. */
export function makeTournament(dir) {
  const db = path.join(dir, "t.db");
  arbiter(["tournament", "run", "--game", "quoridor", "--add", "builtin:runner", "--add", "builtin:blocker",
    "--add", "builtin:random", "--db", db, "--rounds", "2", "--seed", "3", "--jobs", "2"]);
  return db;
}

/**
 * A Quoridor bot that answers nonsense (the referee then plays a random move for it), slowly
 * from its second start on: the compliance check before the tournament (its first start) stays
 * quick, and the matches after it last long enough to be watched. From its second start, while
 * the file HOLD is there, it does not answer: a match stays live until a test has seen it,
 * however slow the machine. (Not a file of its folder: a tournament runs the copy of the
 * folder it keeps in its program cache.)
 */
const SLEEPY_BOT = `#!/bin/sh
here=$(dirname "$0")
starts=$(cat "$here/starts" 2>/dev/null || echo 0)
echo $((starts + 1)) >"$here/starts"
read n; read id; read m; i=0; while [ $i -lt $n ]; do read l; i=$((i+1)); done
while read tick; do
  [ "$tick" = "-1" ] && exit 0
  i=0; while [ $i -lt $n ]; do read l; i=$((i+1)); done
  read f; i=0; while [ $i -lt $f ]; do read l; i=$((i+1)); done
  read empty
  if [ "$starts" -gt 0 ]; then
    while [ -e "HOLD" ]; do sleep 0.05; done
    sleep 0.6
  fi
  echo "thinking about tick $tick" >&2
  echo "pass"
done
`;

/**
 * A player folder `dir`/players/sleepy holding the sleepy bot, started as `sh bot.sh`; returns
 * the players folder. The bot counts its starts in its folder, which a sandbox gives afresh to
 * every match: the tournament runs it with `--no-sandbox`. With `hold`, its matches wait for
 * `releaseSleepyPlayer(dir)`.
 */
export function makeSleepyPlayer(dir, { hold = false } = {}) {
  const players = path.join(dir, "players");
  const player = path.join(players, "sleepy");
  fs.mkdirSync(player, { recursive: true });
  const held = hold ? path.join(dir, "hold") : "";
  fs.writeFileSync(path.join(player, "bot.sh"), SLEEPY_BOT.replace("HOLD", held), { mode: 0o755 });
  fs.writeFileSync(path.join(player, "info.txt"), "sleepy\nSleepy Bot\nsh bot.sh\n");
  if (hold) fs.writeFileSync(held, "");
  return players;
}

/** Lets the sleepy bot of `dir` answer again. */
export function releaseSleepyPlayer(dir) {
  fs.rmSync(path.join(dir, "hold"), { force: true });
}
