// The arena's home page: signing in or up; once signed in, the upload form, the viewer's bots
// with each version's state (followed as server-sent events, so states change by themselves),
// and their teams.

import { h, byId, put } from "./dom.js";
import { renderProblem } from "./nav.js";
import { whoami, send, get, follow, botPage, enc } from "./arena-api.js";
import { versionsTable } from "./arena-versions.js";
import { arenaNav } from "./arena-nav.js";
import { card, field, form } from "./arena-forms.js";

const app = byId("app");

function input(name, type = "text", attrs = {}) {
  return h("input", { name, type, id: `${attrs.prefix || ""}${name}`, ...attrs, prefix: null });
}

function signedOut(me) {
  const signIn = form("signin-form", [
    field("Name", input("name", "text", { prefix: "signin-", autocomplete: "username", required: true })),
    field("Password", input("password", "password", { prefix: "signin-", autocomplete: "current-password", required: true })),
  ], "Sign in", async (f) => {
    await send("POST", "/api/arena/signin", { name: f.name.value, password: f.password.value });
    await render();
  });
  const signUp = form("signup-form", [
    field("Name", input("name", "text", { prefix: "signup-", autocomplete: "username", required: true }),
      "letters, digits, _ - . (your team has your name too)"),
    field("Password", input("password", "password", { prefix: "signup-", autocomplete: "new-password", required: true }),
      "at least 8 characters"),
    me.arena.open_signup ? null
      : field("Invite code", input("invite", "text", { prefix: "signup-", required: true }), "this arena signs up by invitation"),
  ], "Sign up", async (f) => {
    await send("POST", "/api/arena/signup", {
      name: f.name.value, password: f.password.value, invite: f.invite ? f.invite.value : null,
    });
    await render();
  });
  put(app, h("div", { class: "arena-grid" },
    card("Sign in", "signin", signIn),
    card("Sign up", "signup", signUp)));
}

function quotaText(me) {
  return `${me.uploads_today} of ${me.uploads_per_day} uploads in the last 24 hours`;
}

function uploadCard(me, bots, refresh) {
  const quota = h("p", { class: "muted", id: "quota" }, quotaText(me));
  const games = me.arena.games.map((g) => h("option", { value: g }, g));
  const teams = me.teams.map((t) => h("option", { value: t.name, selected: t.name === me.user.name }, t.name));
  const names = h("datalist", { id: "bot-names" }, bots.map((b) => h("option", { value: b.name }, `${b.game} · ${b.team}`)));
  const upload = form("upload-form", [
    field("Bot", h("input", { name: "bot", id: "upload-bot", list: "bot-names", required: true }),
      "an existing bot of yours, or a new name"),
    names,
    field("Game", h("select", { name: "game", id: "upload-game" }, games)),
    field("Team", h("select", { name: "team", id: "upload-team" }, teams), "for a new bot"),
    field("File", h("input", { name: "file", id: "upload-file", type: "file", required: true }),
      "one source file (.c .cpp .py .java .rs .go .js …) or a .zip / .tar.gz of a player folder"),
  ], "Upload", async (f) => {
    const data = new FormData();
    data.append("team", f.team.value);
    data.append("file", f.file.files[0]);
    const answer = await send("POST", `/api/arena/bots/${enc(f.game.value)}/${enc(f.bot.value)}/versions`, data);
    f.file.value = "";
    me.uploads_today += 1;
    quota.textContent = quotaText(me);
    refresh();
    return `version ${answer.version} of ${f.bot.value} is ${answer.state}`;
  });
  return card("Upload a version", "upload", upload, quota);
}

function botSection(bot) {
  return h("section", { class: "bot", dataset: { game: bot.game, name: bot.name } },
    h("div", { class: "bot-head" },
      h("h3", {}, h("a", { href: botPage(bot.game, bot.name) }, bot.name)),
      h("span", { class: "meta" }, `${bot.game} · team ${bot.team}`, bot.active ? ` · v${bot.active} plays` : "",
        bot.retired ? " · retired" : "")),
    versionsTable(bot));
}

function showBots(container, bots) {
  put(container, bots.length ? bots.map(botSection) : h("p", { class: "list-empty" }, "no bot yet: upload a version to make one"));
}

function teamsCard(me) {
  const list = h("ul", { id: "team-list" }, me.teams.map((t) => h("li", { dataset: { team: t.name } }, t.name,
    h("span", { class: "muted members" }, ""))));
  for (const t of me.teams) {
    get(`/api/arena/teams/${enc(t.name)}`).then((team) => {
      const item = list.querySelector(`li[data-team="${CSS.escape(t.name)}"] .members`);
      if (item && team.members) item.textContent = ` (${team.members.join(", ")})`;
    }).catch(() => {});
  }
  const create = form("team-form", [field("New team", input("name", "text", { prefix: "team-", required: true }))],
    "Make the team", async (f) => {
      await send("POST", "/api/arena/teams", { name: f.name.value });
      await render();
    });
  const member = form("member-form", [
    field("Team", h("select", { name: "team", id: "member-team" }, me.teams.map((t) => h("option", { value: t.name }, t.name)))),
    field("User", input("user", "text", { prefix: "member-", required: true })),
  ], "Add the member", async (f) => {
    await send("POST", `/api/arena/teams/${enc(f.team.value)}/members`, { user: f.user.value });
    await render();
  });
  return card("Teams", "teams", list, create, member);
}

let stopFollowing = null;

async function signedIn(me) {
  const bots = await get("/api/arena/bots?mine=1");
  const botList = h("div", { id: "bot-list" });
  showBots(botList, bots);
  const refresh = async () => showBots(botList, await get("/api/arena/bots?mine=1"));
  put(app,
    card("My bots", "my-bots", botList),
    h("div", { class: "arena-grid" }, uploadCard(me, bots, refresh), teamsCard(me)));
  if (stopFollowing) stopFollowing();
  stopFollowing = follow("/api/arena/me/bots/events", "bots", (list) => showBots(botList, list),
    (message) => botList.prepend(h("p", { class: "form-error" }, `states no longer follow: ${message}`)));
}

async function render() {
  try {
    const me = await whoami();
    arenaNav(byId("nav"), me, [], render);
    if (me.user) await signedIn(me);
    else signedOut(me);
  } catch (e) {
    renderProblem(app, "The arena cannot be shown", e.message);
  }
}

render();
