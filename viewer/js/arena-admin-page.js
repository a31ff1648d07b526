// The admins' page: the users (teams, uploads against the quota), every bot with its versions'
// states, and the queue of builds and checks.

import { h, byId, put } from "./dom.js";
import { renderProblem } from "./nav.js";
import { whoami, get, botPage } from "./arena-api.js";
import { statePill } from "./arena-versions.js";
import { arenaNav } from "./arena-nav.js";
import * as fmt from "./format.js";

const app = byId("app");

function table(id, columns, rows, empty) {
  if (!rows.length) return h("p", { class: "list-empty" }, empty);
  return h("div", { class: "table-wrap" }, h("table", { id },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)));
}

function cell(value) {
  if (value === null || value === undefined) return h("td", { class: "muted" }, "–");
  return h("td", {}, typeof value === "object" ? JSON.stringify(value) : String(value));
}

async function render() {
  try {
    const me = await whoami();
    arenaNav(byId("nav"), me, [{ text: "admin" }], () => { window.location.href = "/"; });
    if (!me.user || !me.user.admin) {
      renderProblem(app, "Admins only", "Sign in as an admin to see this page.");
      return;
    }
    const [users, bots, queue] = await Promise.all([
      get("/api/arena/admin/users"), get("/api/arena/admin/bots"), get("/api/arena/admin/queue")]);
    const userRows = users.map((u) => h("tr", {},
      h("td", {}, u.name, u.admin ? h("span", { class: "pill" }, "admin") : null),
      h("td", {}, u.teams.join(", ")),
      h("td", { class: "num" }, `${u.uploads_today} / ${u.uploads_per_day}`),
      h("td", {}, fmt.date(u.created))));
    const botRows = bots.map((b) => h("tr", {},
      h("td", {}, h("a", { href: botPage(b.game, b.name) }, b.name)),
      h("td", {}, b.game), h("td", {}, b.team),
      h("td", {}, b.retired ? "retired" : b.active ? `v${b.active}` : "–"),
      h("td", {}, b.versions.slice(0, 5).map((v) => h("span", {}, `v${v.number} `, statePill(v.state), " ")))));
    const keys = queue.length ? Object.keys(queue[0]) : [];
    const jobRows = queue.map((j) => h("tr", {}, keys.map((k) => cell(j[k]))));
    put(app,
      h("section", { class: "card", id: "users" }, h("h2", {}, "Users"),
        table("user-table", ["user", "teams", "uploads (24 h)", "since"], userRows, "no user")),
      h("section", { class: "card", id: "bots" }, h("h2", {}, "Bots"),
        table("bot-table", ["bot", "game", "team", "plays", "latest versions"], botRows, "no bot")),
      h("section", { class: "card", id: "queue" }, h("h2", {}, "Build queue"),
        table("queue-table", keys, jobRows, "nothing queued or running")));
  } catch (e) {
    renderProblem(app, "The admin page cannot be shown", e.message);
  }
}

render();
