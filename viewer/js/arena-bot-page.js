// A bot's page: its team, the version that plays, every version with its state (followed as
// server-sent events), and for its team the choice of the version that plays and retiring.

import { h, byId, params, put } from "./dom.js";
import { renderProblem } from "./nav.js";
import { whoami, send, get, follow, botUrl } from "./arena-api.js";
import { versionsTable } from "./arena-versions.js";
import { arenaNav } from "./arena-nav.js";

const app = byId("app");
const query = params();
const game = query.get("game");
const name = query.get("name");

function show(bot) {
  const choose = bot.mine && !bot.retired ? async (number) => {
    try {
      show(await send("POST", `${botUrl(game, name)}/active`, { version: number }));
    } catch (e) {
      alert(e.message);
    }
  } : null;
  const retire = bot.mine && !bot.retired
    ? h("button", {
      class: "danger", id: "retire", onclick: async () => {
        if (!confirm(`Retire ${bot.name}? It will play no more and take no new versions.`)) return;
        try {
          show(await send("POST", `${botUrl(game, name)}/retire`));
        } catch (e) {
          alert(e.message);
        }
      },
    }, "retire the bot")
    : null;
  put(app, h("section", { class: "card", id: "bot" },
    h("div", { class: "bot-head" }, h("h2", {}, bot.name),
      h("span", { class: "meta" }, `${bot.game} · team ${bot.team}`),
      h("span", { class: "meta", id: "active" }, bot.retired ? "retired"
        : bot.active ? `v${bot.active} plays${bot.pinned ? " (chosen by the team)" : " (the newest passed)"}` : "no version plays yet")),
    versionsTable(bot, choose),
    retire ? h("p", {}, retire) : null));
}

async function render() {
  if (!game || !name) {
    renderProblem(app, "Which bot?", "This page needs ?game=…&name=… in its address.");
    return;
  }
  try {
    const me = await whoami();
    arenaNav(byId("nav"), me, [{ text: `${game} · ${name}` }], () => render());
    show(await get(botUrl(game, name)));
    follow(`${botUrl(game, name)}/events`, "bot", show);
  } catch (e) {
    renderProblem(app, "This bot cannot be shown", e.message);
  }
}

render();
