// The matches list of a tournament, filtered by player, opponent, result, faults and state through the
// API (the filters kept in the page's address); every row links to its replay (followed live
// while the match is being played).

import { h, put } from "../dom.js";
import { getJSON, enc } from "../api.js";
import * as fmt from "../format.js";
import * as links from "../links.js";

const PAGE = 200;

function select(label, name, options) {
  const control = h("select", { name, "aria-label": label },
    options.map(([value, text]) => h("option", { value }, text)));
  return { control, element: h("label", {}, label, control) };
}

function seatCell(m, colorOf) {
  return h("div", { class: "seats" }, m.seats.map((seat) => {
    const faults = [];
    if (seat.errors) faults.push(`${seat.errors} error${seat.errors > 1 ? "s" : ""}`);
    if (seat.timeouts) faults.push(`${seat.timeouts} timeout${seat.timeouts > 1 ? "s" : ""}`);
    if (seat.crashed) faults.push("crashed");
    if (seat.note) faults.push(seat.note);
    return h("span", { class: `seat ${seat.outcome || ""}` },
      h("span", { class: "swatch small", style: `background:${colorOf(seat.player)}` }),
      seat.alias,
      seat.score !== null && seat.score !== undefined ? h("span", { class: "score" }, fmt.points(seat.score)) : null,
      faults.length ? h("span", { class: "pill bad", title: faults.join(", ") }, faults.join(" · ")) : null);
  }));
}

function stateCell(m) {
  switch (m.state) {
    case "running":
      return m.stalled
        ? h("span", { class: "pill warn", title: "no worker plays it any more: resume the tournament to play it again" }, "stalled")
        : h("span", { class: "pill live" }, "LIVE");
    case "queued":
      return h("span", { class: "pill" }, "queued");
    case "failed":
      return h("span", { class: "pill bad", title: m.error || "" }, "failed");
    default:
      return h("span", { class: "muted" }, m.reason || "done");
  }
}

export function matchesSection(tournamentId, players, colorOf, { fixedPlayer } = {}) {
  const player = select("player", "player", [["", "any"], ...players.map((p) => [p.id, p.alias])]);
  const opponent = select("against", "opponent", [["", "anyone"], ...players.map((p) => [p.id, p.alias])]);
  const result = select("result", "result", [["", "any"], ["win", "win"], ["draw", "draw"], ["loss", "loss"]]);
  const faults = select("faults", "faults", [["", "any"], ["yes", "with faults"], ["no", "without"]]);
  const state = select("state", "state", [["", "any"], ["done", "done"], ["running", "running"], ["queued", "queued"], ["failed", "failed"]]);
  const count = h("span", { class: "muted" });
  const filters = h("div", { class: "filters" }, fixedPlayer ? null : player.element, opponent.element, result.element,
    faults.element, state.element, count);
  const body = h("div", {});
  const element = h("div", { id: "matches" }, filters, body);
  let shown = PAGE;
  let latest = [];
  const filterControls = [player, opponent, result, faults, state].filter((f) => !(fixedPlayer && f === player));
  // The filters are kept in the page's address: a reload or a shared link shows the same list.
  const address = new URLSearchParams(window.location.search);
  for (const f of filterControls) {
    const wanted = address.get(f.control.name);
    if (wanted !== null && [...f.control.options].some((o) => o.value === wanted)) f.control.value = wanted;
  }

  /** A match's replay, opened on the fixed player's seat (a player's page) if it has one. */
  function replayLink(m) {
    const seat = fixedPlayer ? m.seats.findIndex((s) => s.player === fixedPlayer) : -1;
    return links.replayOfMatch(tournamentId, m.id, seat >= 0 ? { player: seat } : {});
  }

  function keepInAddress() {
    const url = new URL(window.location.href);
    for (const f of filterControls) {
      if (f.control.value) url.searchParams.set(f.control.name, f.control.value);
      else url.searchParams.delete(f.control.name);
    }
    history.replaceState(null, "", url);
  }

  function draw() {
    if (!latest.length) {
      body.replaceChildren(h("p", { class: "list-empty" }, "No match matches these filters."));
      return;
    }
    const rows = latest.slice(0, shown).map((m) => h("tr", { class: m.faults ? "with-faults" : "" },
      h("td", { class: "num" }, m.id),
      h("td", { class: "num" }, m.round),
      h("td", {}, seatCell(m, colorOf)),
      h("td", {}, stateCell(m)),
      h("td", { class: "num" }, m.ticks ?? ""),
      h("td", {}, m.has_replay
        ? h("a", { href: replayLink(m) }, m.state === "running" && !m.stalled ? "watch live" : "replay")
        : "")));
    put(body,
      h("div", { class: "table-wrap" }, h("table", { class: "matches" },
        h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", { class: "num" }, "round"), h("th", {}, "players and scores"),
          h("th", {}, "result"), h("th", { class: "num" }, "ticks"), h("th", {}, ""))),
        h("tbody", {}, rows))),
      latest.length > shown
        ? h("button", { type: "button", class: "more", onclick: () => { shown += PAGE; draw(); } }, `show ${Math.min(PAGE, latest.length - shown)} more`)
        : null);
  }

  async function refresh() {
    const query = new URLSearchParams();
    const who = fixedPlayer || player.control.value;
    if (who) query.set("player", who);
    for (const f of [opponent, result, faults, state]) if (f.control.value) query.set(f.control.name, f.control.value);
    latest = await getJSON(`/api/tournaments/${enc(tournamentId)}/matches?${query}`);
    count.textContent = fmt.plural(latest.length, "match", "matches");
    draw();
  }

  for (const f of filterControls) {
    f.control.addEventListener("change", () => {
      shown = PAGE;
      keepInAddress();
      refresh().catch((e) => body.replaceChildren(h("p", { class: "error-text" }, e.message)));
    });
  }
  return { element, refresh };
}
