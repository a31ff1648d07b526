// The team's unrated matches, on its bot's page: a challenge (a series of games against another
// bot of the game, within the team's daily quota) and the playground (one match at once against
// a built-in robot or another of the bot's passed versions, followed until it ends).

import { h } from "./dom.js";
import { send, get, botUrl, enc } from "./arena-api.js";
import { card, field, form } from "./arena-forms.js";

/** The playground's opponent as the form says it: `v3` or `3` a version, anything else a robot. */
export function parseOpponent(text) {
  const value = text.trim();
  const version = /^v?(\d+)$/i.exec(value);
  return version ? Number(version[1]) : value;
}

function challengeForm(bot) {
  const names = h("datalist", { id: "challenge-bots" });
  // The other bots of the game, offered as the reader types.
  get(`/api/arena/bots?game=${enc(bot.game)}`).then((bots) => {
    names.replaceChildren(...bots.filter((b) => b.name !== bot.name && b.active && !b.retired)
      .map((b) => h("option", { value: b.name }, `team ${b.team}`)));
  }).catch(() => {});
  return form("challenge-form", [
    field("Opponent", h("input", { name: "opponent", id: "challenge-opponent", list: "challenge-bots", required: true }),
      "a bot of the game: its version that plays meets yours"),
    names,
    field("Games", h("input", { name: "games", id: "challenge-games", type: "number", min: 1, max: 100, value: 10, required: true }),
      "unrated, seats swapped in pairs; counted against your team's daily quota"),
  ], "Challenge", async (f) => {
    const answer = await send("POST", `${botUrl(bot.game, bot.name)}/challenges`,
      { opponent: f.opponent.value.trim(), games: Number(f.games.value) });
    return `${answer.games} games of v${answer.version} against ${answer.opponent} v${answer.opponent_version} are queued: they appear among the matches below`;
  });
}

function playgroundForm(me, bot, watch) {
  const robots = (me.arena.robots && me.arena.robots[bot.game]) || [];
  const versions = bot.versions.filter((v) => v.stage === "passed" && v.number !== bot.active);
  const choices = h("datalist", { id: "playground-choices" },
    robots.map((r) => h("option", { value: r }, "robot")),
    versions.map((v) => h("option", { value: `v${v.number}` }, "your version")));
  const line = h("p", { id: "playground-status", class: "muted" });
  const node = form("playground-form", [
    field("Against", h("input", { name: "opponent", id: "playground-opponent", list: "playground-choices", required: true }),
      `a robot (${robots.join(", ") || "the game's"}; strong/nodes=N searches N nodes) or vN, another of your versions`),
    choices,
  ], "Play now", async (f) => {
    const answer = await send("POST", `${botUrl(bot.game, bot.name)}/playground`, { opponent: parseOpponent(f.opponent.value) });
    line.textContent = `match #${answer.match} is queued…`;
    watch(answer.match, line);
    return null;
  });
  return [node, line];
}

/** The team's card of unrated matches; `watch(id, line)` follows a playground match. */
export function playCard(me, bot, watch) {
  if (!bot.active) {
    return card("Play", "play", h("p", { class: "list-empty" }, "challenges and the playground open once a version has passed its check"));
  }
  return h("div", { class: "arena-grid", id: "play" },
    card("Playground", "playground", h("p", { class: "muted" }, `v${bot.active} plays one match at once, before the ladder's; you watch its replay when it ends.`),
      playgroundForm(me, bot, watch)),
    card("Challenge", "challenge", challengeForm(bot)));
}
