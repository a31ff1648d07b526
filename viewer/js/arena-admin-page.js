// The admins' page: running the arena (pausing and resuming the ladder, freezing and opening
// uploads, disabling a bot), the users (teams, uploads against the quota), every bot with its
// versions' states, and the queue of builds and checks.

import { h, byId, put } from "./dom.js";
import { renderProblem } from "./nav.js";
import { whoami, get, send, botPage, enc } from "./arena-api.js";
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

/** A button that switches one of the arena's settings and shows the answer. */
function switchButton(id, text, action) {
  const button = h("button", { id }, text);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await action();
      await render();
    } catch (e) {
      alert(e.message);
      button.disabled = false;
    }
  });
  return button;
}

function operationsCard(ops) {
  const paused = ops.ladder_paused;
  const frozen = ops.uploads_frozen;
  return h("section", { class: "card", id: "operations" }, h("h2", {}, "Running the arena"),
    h("p", { id: "ladder-state" }, paused ? "The ladder is paused: no new ladder match is queued." : "The ladder is running.", " ",
      switchButton("toggle-ladder", paused ? "resume the ladder" : "pause the ladder",
        () => send("POST", "/api/arena/admin/ladder", { paused: !paused }))),
    h("p", { id: "uploads-state" }, frozen ? "Uploads are frozen: every new version is refused." : "Uploads are open.", " ",
      switchButton("toggle-uploads", frozen ? "open uploads" : "freeze uploads",
        () => send("POST", "/api/arena/admin/uploads", { frozen: !frozen }))));
}

function disableButton(bot) {
  return switchButton(`disable-${bot.game}-${bot.name}`, bot.disabled ? "enable" : "disable",
    () => send("POST", `/api/arena/admin/bots/${enc(bot.game)}/${enc(bot.name)}`, { disabled: !bot.disabled }));
}

async function render() {
  try {
    const me = await whoami();
    arenaNav(byId("nav"), me, [{ text: "admin" }], () => { window.location.href = "/"; });
    if (!me.user || !me.user.admin) {
      renderProblem(app, "Admins only", "Sign in as an admin to see this page.");
      return;
    }
    const [users, bots, queue, ops] = await Promise.all([
      get("/api/arena/admin/users"), get("/api/arena/admin/bots"), get("/api/arena/admin/queue"),
      get("/api/arena/admin/operations")]);
    const userRows = users.map((u) => h("tr", {},
      h("td", {}, u.name, u.admin ? h("span", { class: "pill" }, "admin") : null),
      h("td", {}, u.teams.join(", ")),
      h("td", { class: "num" }, `${u.uploads_today} / ${u.uploads_per_day}`),
      h("td", {}, fmt.date(u.created))));
    const botRows = bots.map((b) => h("tr", { dataset: { bot: b.name, disabled: b.disabled ? "yes" : "no" } },
      h("td", {}, h("a", { href: botPage(b.game, b.name) }, b.name), b.robot ? [" ", h("span", { class: "pill robot" }, "robot")] : null,
        b.disabled ? [" ", h("span", { class: "pill bad" }, "disabled")] : null),
      h("td", {}, b.game), h("td", {}, b.team),
      h("td", {}, b.retired ? "retired" : b.active ? `v${b.active}` : "–"),
      h("td", {}, b.versions.slice(0, 5).map((v) => h("span", {}, `v${v.number} `, statePill(v.state), " "))),
      h("td", {}, disableButton(b))));
    const keys = queue.length ? Object.keys(queue[0]) : [];
    const jobRows = queue.map((j) => h("tr", {}, keys.map((k) => cell(j[k]))));
    put(app, operationsCard(ops),
      h("section", { class: "card", id: "users" }, h("h2", {}, "Users"),
        table("user-table", ["user", "teams", "uploads (24 h)", "since"], userRows, "no user")),
      h("section", { class: "card", id: "bots" }, h("h2", {}, "Bots"),
        table("bot-table", ["bot", "game", "team", "plays", "latest versions", "ladder"], botRows, "no bot")),
      h("section", { class: "card", id: "queue" }, h("h2", {}, "Build queue"),
        table("queue-table", keys, jobRows, "nothing queued or running")));
  } catch (e) {
    renderProblem(app, "The admin page cannot be shown", e.message);
  }
}

render();
