// Where the replay comes from: embedded in an exported page, a file the server names by id, a
// tournament match or a game of a game server; and, for one still being played, the live stream
// of its new lines.

import { getJSON, enc } from "../api.js";

export function replaySource(query) {
  const embedded = document.getElementById("arbiter-replay");
  if (embedded) {
    return {
      label: "exported replay",
      exported: true,
      load: async () => JSON.parse(embedded.textContent),
      streamUrl: null,
    };
  }
  const id = query.get("id");
  if (id) {
    return {
      label: id,
      load: () => getJSON(`/api/replay?id=${enc(id)}`),
      streamUrl: (from) => `/api/replay/stream?id=${enc(id)}&from=${from}`,
    };
  }
  const arena = query.get("arena");
  if (arena) {
    // A check replay of an arena bot's version: `game/bot/version/index`.
    const [game, bot, version, index] = arena.split("/");
    return {
      label: `${bot} v${version}, check ${Number(index) + 1}`,
      load: () => getJSON(`/api/arena/bots/${enc(game)}/${enc(bot)}/versions/${enc(version)}/check/${enc(index)}/replay`),
      // Played whole before it is shown: nothing to follow.
      streamUrl: null,
    };
  }
  const arenaMatch = query.get("arena-match");
  if (arenaMatch) {
    // A match of the arena's ladder, a challenge, the playground or an SPRT series; the bot
    // followed is chosen by `player` (its seat).
    return {
      label: `arena match ${arenaMatch}`,
      load: () => getJSON(`/api/arena/matches/${enc(arenaMatch)}/replay`),
      // Kept once the match has ended: nothing to follow.
      streamUrl: null,
    };
  }
  const t = query.get("t");
  const check = query.get("check");
  if (t && check) {
    return {
      label: `compliance check of ${check}`,
      tournament: t,
      crumb: `check of ${check}`,
      load: () => getJSON(`/api/tournaments/${enc(t)}/players/${enc(check)}/check`),
      // Played whole before the tournament: nothing to follow.
      streamUrl: null,
    };
  }
  const m = query.get("m");
  if (t && m) {
    const base = `/api/tournaments/${enc(t)}/matches/${enc(m)}/replay`;
    return {
      label: `tournament ${t}, match ${m}`,
      tournament: t,
      match: m,
      crumb: `match ${m}`,
      load: () => getJSON(base),
      streamUrl: (from) => `${base}/stream?from=${from}`,
    };
  }
  const server = query.get("server");
  const game = query.get("game");
  if (server && game) {
    const base = `/api/servers/${enc(server)}/games/${enc(game)}/replay`;
    return {
      label: `game ${game}`,
      server,
      load: () => getJSON(base),
      streamUrl: (from) => `${base}/stream?from=${from}`,
    };
  }
  return null;
}

/**
 * Follows a replay being written: `onRecord` gets each new record (header, tick or result),
 * `onFailure` a message if the stream cannot be read, `onStalled` why it stopped growing
 * without a result, `onEnd` is called once nothing more will come. Returns a function that stops following.
 */
export function follow(url, { onRecord, onFailure, onStalled, onEnd, onState }) {
  const events = new EventSource(url);
  events.addEventListener("open", () => onState && onState("live"));
  events.addEventListener("record", (event) => onRecord(JSON.parse(event.data)));
  events.addEventListener("failure", (event) => onFailure(event.data));
  // No result and no new line for a while: no one writes the replay any more.
  events.addEventListener("stalled", (event) => onStalled(event.data));
  events.addEventListener("end", () => {
    events.close();
    onEnd();
  });
  // The browser reconnects by itself, resuming after the last record it got.
  events.addEventListener("error", () => onState && onState(events.readyState === EventSource.CLOSED ? "closed" : "reconnecting"));
  return () => events.close();
}
