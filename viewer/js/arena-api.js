// Talking to the arena's API (/api/arena/…): reads as the viewer's pages do, and changes with
// the session's CSRF token in the X-CSRF-Token header (the server refuses a change without
// it). Errors carry the server's message, meant for people.

import { getJSON, ApiError, enc } from "./api.js";

export { enc, ApiError };

let token = null;

/** Who is signed in (`user` null if no one), with the arena's games; keeps the CSRF token. */
export async function whoami() {
  const me = await getJSON("/api/arena/me");
  token = me.csrf || null;
  return me;
}

export const get = getJSON;

/** A change: `body` is sent as JSON, or as it is if it is a FormData (an upload). */
export async function send(method, url, body) {
  const headers = { Accept: "application/json" };
  if (token) headers["X-CSRF-Token"] = token;
  let payload;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, { method, headers, body: payload, credentials: "same-origin" });
  } catch (e) {
    throw new ApiError("cannot reach the arena (is it still running?)", "network", 0);
  }
  if (response.status === 204) return null;
  let answer = null;
  try {
    answer = await response.json();
  } catch (e) {
    // Not one of ours (a proxy's page).
  }
  if (!response.ok) {
    const message = answer && answer.error ? answer.error : `the arena answered ${response.status}`;
    throw new ApiError(message, answer && answer.kind, response.status);
  }
  if (answer && answer.csrf) token = answer.csrf;
  return answer;
}

export function botUrl(game, name) {
  return `/api/arena/bots/${enc(game)}/${enc(name)}`;
}

export function botPage(game, name) {
  return `/arena-bot.html?game=${enc(game)}&name=${enc(name)}`;
}

/** A game's ladder: its leaderboard and live matches (no game: the list of games). */
export function ladderPage(game) {
  return game ? `/arena-ladder.html?game=${enc(game)}` : "/arena-ladder.html";
}

/** A match of the arena in the replay viewer, with seat `seat` chosen (the bot followed). */
export function matchReplayPage(id, seat) {
  const player = seat === undefined || seat === null ? "" : `&player=${enc(seat)}`;
  return `/replay.html?arena-match=${enc(id)}${player}`;
}

/** A check replay in the replay viewer. */
export function checkReplayPage(game, name, number, index) {
  return `/replay.html?arena=${enc(`${game}/${name}/${number}/${index}`)}`;
}

/** Follows `url`'s server-sent `event`s; returns a function that stops. */
export function follow(url, event, onValue, onFailure) {
  const events = new EventSource(url);
  events.addEventListener(event, (e) => onValue(JSON.parse(e.data)));
  events.addEventListener("failure", (e) => {
    events.close();
    if (onFailure) onFailure(e.data);
  });
  return () => events.close();
}
