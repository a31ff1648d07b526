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
    /** Per player: indexes of the ticks the player acted in, ascending. */
    this.turnsOf = this.players.map(() => []);
    /** Per player: indexes of the ticks holding anything of the bot (messages, log, error). */
    this.activityOf = this.players.map(() => []);
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
    if (Number.isInteger(tick.player) && this.turnsOf[tick.player]) this.turnsOf[tick.player].push(index);
    (tick.bots || []).forEach((bot, player) => {
      if (hasActivity(bot) && this.activityOf[player]) this.activityOf[player].push(index);
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

  /** The latest tick at or before `index` in which `player` acted, or null. */
  lastTurn(player, index) {
    return atOrBefore(this.turnsOf[player] || [], index);
  }

  /** The latest tick at or before `index` holding anything of `player`'s bot, or null. */
  lastActivity(player, index) {
    return atOrBefore(this.activityOf[player] || [], index);
  }

  /** The next tick after `index` in which `player` acted, or null. */
  nextTurn(index, player) {
    const list = this.turnsOf[player] || [];
    const at = upperBound(list, index);
    return at < list.length ? list[at] : null;
  }

  /** The previous tick before `index` in which `player` acted, or null. */
  previousTurn(index, player) {
    const list = this.turnsOf[player] || [];
    const at = lowerBound(list, index) - 1;
    return at >= 0 ? list[at] : null;
  }

  /** A player's name as the replay header gives it. */
  playerName(index) {
    const p = this.players[index];
    return p ? p.name : `player ${index}`;
  }
}

/** Whether a tick's record of a bot holds anything the bot was sent, wrote or was told. */
function hasActivity(bot) {
  return !!bot && ((bot.received && bot.received.length > 0) || (bot.sent && bot.sent.length > 0) ||
    !!bot.log || !!bot.error || (bot.notes && bot.notes.length > 0));
}

/** The greatest value of sorted `list` that is <= `value`, or null. */
function atOrBefore(list, value) {
  const at = upperBound(list, value) - 1;
  return at >= 0 ? list[at] : null;
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
