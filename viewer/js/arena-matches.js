// The arena's matches as its pages show them: who sits in a match (bots and robots, each with
// its version), its state, its result from one bot's side (win, draw, loss, faults), and the
// link to its replay with that bot's seat chosen.

import { h } from "./dom.js";
import * as fmt from "./format.js";
import { botPage, matchReplayPage } from "./arena-api.js";

const KIND_TEXT = { ladder: "ladder", challenge: "challenge", playground: "playground", sprt: "SPRT" };
const STATE_PILL = { queued: "", running: "warn", finished: "ok", failed: "bad" };
const STATE_TEXT = { queued: "queued", running: "being played", finished: "finished", failed: "failed" };
const RESULT_PILL = { win: "ok", draw: "", loss: "bad" };

export function kindText(kind) {
  return KIND_TEXT[kind] || kind;
}

export function matchStatePill(state) {
  return h("span", { class: `pill ${STATE_PILL[state] || ""}`, dataset: { state } }, STATE_TEXT[state] || state);
}

export function resultPill(result) {
  if (!result) return h("span", { class: "muted" }, "–");
  return h("span", { class: `pill result ${RESULT_PILL[result] || ""}`, dataset: { result } }, result);
}

/** A seat's bot (linked to its page) and version; a robot by its name. */
export function seatName(game, seat) {
  if (seat.robot) return h("span", { class: "seat robot" }, seat.bot, " ", h("span", { class: "pill robot" }, "robot"));
  return h("span", { class: "seat" }, h("a", { href: botPage(game, seat.bot) }, seat.bot), h("span", { class: "muted" }, ` v${seat.version}`));
}

/** Who plays whom, in seat order, with each place once known. */
export function seatsLine(match) {
  const parts = [];
  match.seats.forEach((seat, i) => {
    if (i > 0) parts.push(h("span", { class: "vs-word" }, " vs "));
    parts.push(seatName(match.game, seat));
    if (seat.place) parts.push(h("span", { class: "muted place" }, ` (${ordinal(seat.place)})`));
  });
  return h("span", { class: "seats" }, parts);
}

export function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${tail}`;
}

/** The faults of the match's seats, as one line ("b1: timeout"); null if none. */
export function faultsText(match) {
  const faults = match.seats.filter((s) => s.fault).map((s) => `${s.bot}: ${s.fault}`);
  return faults.length ? faults.join("; ") : null;
}

/** The link to a finished match's replay, opening on `seat`. */
export function replayLink(match, seat, text = "replay") {
  if (match.state !== "finished") return h("span", { class: "muted" }, "–");
  return h("a", { class: "replay-link", href: matchReplayPage(match.id, seat) }, text);
}

/** When a match happened, or was queued if it has not yet. */
export function when(match) {
  return fmt.ago(match.finished || match.started || match.created);
}

/** A list of matches as a table, each row with its state, seats, faults and replay. */
export function matchesTable(id, matches, empty) {
  if (!matches.length) return h("p", { class: "list-empty" }, empty);
  const rows = matches.map((m) => h("tr", { class: "match", dataset: { id: m.id, state: m.state, kind: m.kind } },
    h("td", { class: "num" }, `#${m.id}`),
    h("td", {}, kindText(m.kind)),
    h("td", {}, seatsLine(m)),
    h("td", {}, matchStatePill(m.state)),
    h("td", { class: "faults" }, faultsText(m) || h("span", { class: "muted" }, "–")),
    h("td", {}, when(m)),
    h("td", {}, replayLink(m, null))));
  return h("div", { class: "table-wrap" }, h("table", { id, class: "matches" },
    h("thead", {}, h("tr", {}, ["match", "kind", "seats", "state", "faults", "when", ""].map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)));
}

/** A bot's matches from its side: its version, its opponents, its result and faults, its replay. */
export function botMatchesTable(matches) {
  if (!matches.length) return h("p", { class: "list-empty" }, "no match yet");
  const rows = matches.map((m) => h("tr", { class: "match", dataset: { id: m.id, state: m.state, result: m.result || "" } },
    h("td", { class: "num" }, `#${m.id}`),
    h("td", {}, kindText(m.kind)),
    h("td", {}, `v${m.version}`),
    h("td", { class: "opponents" }, (m.opponents || []).map((o, i) => [i ? ", " : "", seatName(m.game, o)])),
    h("td", {}, m.state === "finished" ? resultPill(m.result) : matchStatePill(m.state)),
    h("td", { class: "faults" }, m.fault ? h("span", { class: "problem-text" }, m.fault) : h("span", { class: "muted" }, "–")),
    h("td", {}, when(m)),
    h("td", {}, replayLink(m, m.seat))));
  return h("div", { class: "table-wrap" }, h("table", { id: "match-table", class: "matches" },
    h("thead", {}, h("tr", {}, ["match", "kind", "version", "against", "result", "fault", "when", ""].map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)));
}
