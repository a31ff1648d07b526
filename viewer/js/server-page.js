// The game server's page: its teams, scoreboard, running games (to watch live), finished games
// by the id their clients were told, and the countdown to the next start. It follows the
// server's status as server-sent events, so it updates by itself.

import { h, byId, params, put } from "./dom.js";
import { getJSON, enc } from "./api.js";
import { renderNav, renderProblem } from "./nav.js";
import { playerColor } from "./colors.js";
import * as fmt from "./format.js";
import * as links from "./links.js";

const app = byId("app");

function section(title, id, ...body) {
  return h("section", { class: "card", id }, h("h2", {}, title), ...body);
}

function seats(list) {
  return list.map((seat, i) => h("span", { class: seat.team ? "seat team" : "seat robot muted" },
    i > 0 ? " · " : "",
    h("span", { class: "swatch small", style: `background:${playerColor(i)}` }),
    seat.name,
    seat.points !== undefined ? ` ${fmt.points(seat.points)}` : ""));
}

function table(id, columns, rows, empty) {
  if (!rows.length) return h("p", { class: "list-empty" }, empty);
  return h("div", { class: "table-wrap" }, h("table", { id },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)));
}

const STATE_PILL = { idle: "ok", playing: "live", disconnected: "warn" };

function teamRows(teams) {
  return teams.map((t) => h("tr", {},
    h("td", {}, t.team),
    h("td", {}, h("span", { class: `pill ${STATE_PILL[t.state]}` }, t.state)),
    h("td", {}, t.since ? fmt.ago(t.since) : "not seen")));
}

function scoreRows(scoreboard) {
  return scoreboard.map((s) => h("tr", {},
    h("td", { class: "num" }, s.rank),
    h("td", {}, s.team),
    h("td", { class: "num" }, fmt.points(s.live)),
    h("td", { class: "num" }, fmt.points(s.test))));
}

function runningRows(game, running) {
  return running.map((g) => h("tr", {},
    h("td", { class: "num" }, g.id),
    h("td", {}, g.mode, " · round ", g.round, " · level ", g.level),
    h("td", {}, seats(g.seats), h("div", { class: "muted rule" }, g.rule)),
    h("td", {}, g.replay
      ? h("a", { href: links.replayOfServerGame(game, g.id) }, h("span", { class: "pill live" }, "LIVE"), " watch")
      : h("span", { class: "muted" }, "no replay"))));
}

function finishedRows(game, games) {
  return games.map((g) => h("tr", {},
    h("td", { class: "num" }, g.id),
    h("td", {}, g.mode, " · round ", g.round, " · level ", g.level),
    h("td", {}, seats(g.seats)),
    h("td", {}, g.reason),
    h("td", {}, g.replay ? h("a", { href: links.replayOfServerGame(game, g.id) }, "replay") : "–")));
}

/** Seconds left until `at` (Unix ms), as the countdown shows them. */
function countdown(at) {
  const left = Math.max(0, Math.ceil((at - Date.now()) / 1000));
  const m = Math.floor(left / 60);
  return m ? `${m} min ${String(left % 60).padStart(2, "0")} s` : `${left} s`;
}

class ServerPage {
  constructor(game) {
    this.game = game;
    this.status = null;
    this.played = -1;
    /** Lists of finished games asked for: only the answer to the last one is shown. */
    this.asked = 0;
    this.parts = {
      head: h("div", { class: "server-head" }),
      next: section("Next start", "next"),
      teams: section("Teams", "teams"),
      scoreboard: section("Scoreboard", "scoreboard"),
      running: section("Playing now", "running"),
      finished: section("Finished games", "finished"),
    };
    app.replaceChildren(...Object.values(this.parts));
    setInterval(() => this.tick(), 1000);
  }

  show(status) {
    this.status = status;
    const p = this.parts;
    put(p.head, h("h1", {}, `${status.game} game server `,
      h("span", { class: `pill ${status.mode === "live" ? "live" : "ok"}`, id: "mode" }, status.mode === "live" ? "LIVE · the final" : "TEST"),
      status.over ? h("span", { class: "pill warn", id: "over" }, " session over") : null),
    h("p", { class: "muted" }, `${fmt.plural(status.played, "game")} played · session started ${fmt.date(status.started)}`));
    this.tick();
    put(p.teams, h("h2", {}, "Teams"), table("team-list", ["team", "state", "since"], teamRows(status.teams), "No team has logged in yet."));
    put(p.scoreboard, h("h2", {}, "Scoreboard"),
      h("p", { class: "muted" }, "Ranked by the final score sf, then the test score st."),
      table("scores", ["rank", "team", "sf (final)", "st (test)"], scoreRows(status.scoreboard), "No game has been played yet."));
    put(p.running, h("h2", {}, "Playing now"),
      table("running-games", ["game", "", "seats (in order) and the rule that ordered them", ""], runningRows(this.game, status.running), "No game is being played right now."));
    if (status.played !== this.played) {
      this.played = status.played;
      this.loadFinished();
    }
  }

  tick() {
    const next = this.status && this.status.next;
    put(this.parts.next, h("h2", {}, "Next start"), next
      ? h("p", {}, h("strong", { id: "countdown" }, countdown(next.at)), ` · level ${next.level} · ${next.mode}`,
        h("span", { class: "muted" }, ` (at the latest: sooner when enough teams wait)`))
      : h("p", { id: "countdown" }, "No more games: the session is over."));
  }

  /**
   * Shows the finished games. Answers can come out of order (a game ends while the list is on
   * its way): an answer older than the last question is dropped, or the list would stay short
   * of the games played.
   */
  async loadFinished() {
    const asked = ++this.asked;
    try {
      const games = await getJSON(`/api/servers/${enc(this.game)}/games`);
      if (asked !== this.asked) return;
      put(this.parts.finished, h("h2", {}, "Finished games"),
        table("finished-games", ["game", "", "seats and points", "ended", ""], finishedRows(this.game, games), "No game has finished yet."));
    } catch (e) {
      if (asked !== this.asked) return;
      put(this.parts.finished, h("h2", {}, "Finished games"), h("p", { class: "error-text" }, e.message));
    }
  }

  follow() {
    const events = new EventSource(`/api/servers/${enc(this.game)}/events`);
    events.addEventListener("status", (event) => this.show(JSON.parse(event.data)));
    events.addEventListener("failure", (event) => {
      events.close();
      renderProblem(app, "The game server cannot be shown", event.data);
    });
  }
}

async function main() {
  let game = params().get("game");
  try {
    if (!game) {
      const servers = await getJSON("/api/servers");
      if (!servers.length) throw new Error("there is no game server in this store");
      game = servers[0].game;
    }
    renderNav(byId("nav"), [{ text: `${game} server` }]);
    const page = new ServerPage(game);
    page.show(await getJSON(`/api/servers/${enc(game)}`));
    page.follow();
  } catch (e) {
    renderNav(byId("nav"));
    renderProblem(app, "The game server cannot be shown", e.message);
  }
}

main();
