// A bot's versions as the arena's pages show them: each version's state (queued, building,
// build failed with its log, checking, check failed with its reason and replays, passed,
// active, retired), its SPRT series against the previous version, and for the bot's team the
// controls to choose the version that plays.

import { h } from "./dom.js";
import * as fmt from "./format.js";
import { checkReplayPage, get, botUrl, enc } from "./arena-api.js";

const STATE_TEXT = {
  queued: "queued",
  building: "building…",
  build_failed: "build failed",
  checking: "checking…",
  check_failed: "check failed",
  passed: "passed",
  active: "active",
  retired: "retired",
};

const STATE_PILL = {
  queued: "", building: "warn", checking: "warn", build_failed: "bad", check_failed: "bad",
  passed: "ok", active: "ok live-ok", retired: "",
};

export function statePill(state) {
  return h("span", { class: `pill state ${STATE_PILL[state] || ""}`, dataset: { state } }, STATE_TEXT[state] || state);
}

/** The check replays of a failed or passed version, fetched when its details are opened. */
function checks(bot, version) {
  const list = h("ul", { class: "checks" }, h("li", { class: "muted" }, "loading the check replays…"));
  get(`${botUrl(bot.game, bot.name)}/versions/${enc(version.number)}`).then((full) => {
    list.replaceChildren(...(full.checks.length
      ? full.checks.map((c) => h("li", {}, h("a", { href: checkReplayPage(bot.game, bot.name, version.number, c.index) }, c.label)))
      : [h("li", { class: "muted" }, "no check replay")]));
  }).catch((e) => list.replaceChildren(h("li", { class: "problem-text" }, e.message)));
  return list;
}

const SPRT_PILL = { running: "warn", stronger: "ok", not_stronger: "bad", inconclusive: "" };
const SPRT_TEXT = { running: "SPRT running", stronger: "stronger", not_stronger: "not stronger", inconclusive: "inconclusive" };

/** A version's SPRT series against the previous one: "v7 against v6: +34 ± 12 Elo, …". */
function sprtLine(sprt) {
  return h("p", { class: "sprt", dataset: { result: sprt.result } },
    h("span", { class: `pill ${SPRT_PILL[sprt.result] || ""}` }, SPRT_TEXT[sprt.result] || sprt.result), " ", sprt.sentence);
}

function details(bot, version) {
  const parts = [];
  if (version.sprt) parts.push(sprtLine(version.sprt));
  if (version.reason) parts.push(h("p", { class: "reason" }, version.reason));
  if (version.stage === "build_failed" && version.build_log !== undefined) {
    parts.push(h("details", { class: "build-log", open: true }, h("summary", {}, "build log"),
      h("pre", {}, version.build_log || "(empty)")));
  } else if (version.build_log) {
    parts.push(h("details", { class: "build-log" }, h("summary", {}, "build log"), h("pre", {}, version.build_log)));
  }
  if (["check_failed", "passed"].includes(version.stage)) {
    parts.push(h("details", { class: "check-list", open: version.stage === "check_failed" },
      h("summary", {}, "check replays"), checks(bot, version)));
  }
  return parts;
}

/**
 * The versions table of `bot`; `onChoose(number or null)` is called by the team's buttons
 * (absent: no buttons).
 */
export function versionsTable(bot, onChoose) {
  if (!bot.versions.length) return h("p", { class: "list-empty" }, "no version yet");
  const rows = bot.versions.map((v) => h("tr", { class: "version", dataset: { number: v.number, state: v.state } },
    h("td", { class: "num" }, `v${v.number}`),
    h("td", {}, statePill(v.state)),
    h("td", {}, v.language || h("span", { class: "muted" }, "–"), v.file_name ? h("div", { class: "muted" }, v.file_name) : null),
    h("td", {}, fmt.ago(v.updated)),
    h("td", { class: "version-details" }, details(bot, v)),
    onChoose ? h("td", {}, v.stage === "passed" && bot.active !== v.number && !bot.retired
      ? h("button", { class: "choose", onclick: () => onChoose(v.number) }, "make active")
      : (bot.pinned && bot.active === v.number
        ? h("button", { class: "unpin", onclick: () => onChoose(null) }, "let the newest play")
        : null)) : null));
  return h("div", { class: "table-wrap" }, h("table", { class: "versions" },
    h("thead", {}, h("tr", {}, ["version", "state", "language", "changed", "details"].map((c) => h("th", {}, c)),
      onChoose ? h("th", {}, "") : null)),
    h("tbody", {}, rows)));
}
