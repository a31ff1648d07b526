// A replay in memory, with the indexes the viewer needs at every frame computed once, as ticks
// arrive: which ticks hold errors (per player and in all), and from which tick each player is
// down. Ticks are addressed by their index in the file, which is also their tick number.

/** The newest major version of the replay format this viewer reads. */
export const FORMAT_MAJOR = 1;

export class FormatError extends Error {}

export function checkFormat(header) {
  if (!header || (header.type !== undefined && header.type !== "header")) {
    throw new FormatError("this file does not start with a replay header");
  }
  const format = header.format;
  if (!format || typeof format.major !== "number") {
    throw new FormatError("the replay header has no format version");
  }
  if (format.major > FORMAT_MAJOR) {
    throw new FormatError(
      `replay format ${format.major}.${format.minor} is newer than this viewer reads ` +
        `(${FORMAT_MAJOR}.x); upgrade arbiter`,
    );
  }
}

export class Replay {
  constructor(header) {
    checkFormat(header);
    this.header = header;
    this.players = header.players || [];
    this.ticks = [];
    this.result = null;
    /** Indexes of ticks where some bot has an error, ascending. */
    this.errorTicks = [];
    /** Per player: indexes of ticks where that bot has an error. */
    this.errorTicksOf = this.players.map(() => []);
    /** Per player: the first tick at which the bot is offline, or null. */
    this.downAt = this.players.map(() => null);
    this.listeners = [];
  }

  static from(data) {
    const replay = new Replay(data.header);
    for (const tick of data.ticks || []) replay.addTick(tick, true);
    if (data.result) replay.result = data.result;
    return replay;
  }

  get game() {
    return this.header.game;
  }

  get length() {
    return this.ticks.length;
  }

  onChange(listener) {
    this.listeners.push(listener);
  }

  addTick(tick, quiet = false) {
    const index = this.ticks.length;
    this.ticks.push(tick);
    let error = false;
    (tick.bots || []).forEach((bot, player) => {
      if (bot.error) {
        error = true;
        if (this.errorTicksOf[player]) this.errorTicksOf[player].push(index);
      }
      if (bot.offline && this.downAt[player] === null) this.downAt[player] = index;
    });
    if (error) this.errorTicks.push(index);
    if (!quiet) this.listeners.forEach((f) => f("tick"));
  }

  setResult(result) {
    this.result = result;
    this.listeners.forEach((f) => f("result"));
  }

  /** Whether `player` is crashed or offline at tick `index`. */
  isDown(player, index) {
    const at = this.downAt[player];
    return at !== null && at !== undefined && index >= at;
  }

  /** The error ticks that "next/previous error" walk: the player's, or everyone's. */
  errorList(player) {
    const own = this.errorTicksOf[player];
    return own && own.length ? own : this.errorTicks;
  }

  nextError(index, player) {
    const list = this.errorList(player);
    const at = upperBound(list, index);
    return at < list.length ? list[at] : null;
  }

  previousError(index, player) {
    const list = this.errorList(player);
    const at = lowerBound(list, index) - 1;
    return at >= 0 ? list[at] : null;
  }

  /** A player's name as the replay header gives it. */
  playerName(index) {
    const p = this.players[index];
    return p ? p.name : `player ${index}`;
  }
}

/** The first position in sorted `list` holding a value >= `value`. */
function lowerBound(list, value) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first position in sorted `list` holding a value > `value`. */
function upperBound(list, value) {
  return lowerBound(list, value + 1);
}
