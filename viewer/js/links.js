// Addresses of the pages, in one place.

const q = encodeURIComponent;

export function replayOfMatch(t, m, { tick, player } = {}) {
  let url = `/replay.html?t=${q(t)}&m=${q(m)}`;
  if (tick !== undefined) url += `&tick=${q(tick)}`;
  if (player !== undefined) url += `&player=${q(player)}`;
  return url;
}

export function replayFile(id) {
  return `/replay.html?id=${q(id)}`;
}

export function tournament(t) {
  return `/tournament.html?t=${q(t)}`;
}

export function player(t, p) {
  return `/player.html?t=${q(t)}&p=${q(p)}`;
}

/** The replay of a player's compliance check (the player sits in seat 0). */
export function checkReplay(t, p) {
  return `/replay.html?t=${q(t)}&check=${q(p)}&player=0`;
}

/** A tournament's page listing the matches `p` played against `opponent`. */
export function matchesOfPairing(t, p, opponent) {
  return `/tournament.html?t=${q(t)}&player=${q(p)}&opponent=${q(opponent)}#matches`;
}

export function server(game) {
  return `/server.html?game=${q(game)}`;
}

export function replayOfServerGame(game, id) {
  return `/replay.html?server=${q(game)}&game=${q(id)}`;
}
