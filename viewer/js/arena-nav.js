// The arena's bar at the top: where one is, the ladders, who is signed in, the admin page,
// signing out.

import { h } from "./dom.js";
import { send, ladderPage } from "./arena-api.js";

export function arenaNav(container, me, crumbs, onSignOut) {
  const links = [h("a", { class: "brand", href: "/" }, "Arbiter arena")];
  const games = me.arena ? me.arena.games : [];
  const ladders = h("a", { href: ladderPage(games.length === 1 ? games[0] : null), id: "ladder-link" },
    games.length === 1 ? "ladder" : "ladders");
  for (const crumb of crumbs) {
    links.push(h("span", { class: "sep" }, "/"));
    links.push(crumb.href ? h("a", { href: crumb.href }, crumb.text) : h("span", {}, crumb.text));
  }
  const who = me.user
    ? h("span", { class: "whoami" }, ladders,
      me.user.admin ? h("a", { href: "/arena-admin.html", id: "admin-link" }, "admin") : null,
      h("span", { id: "signed-in-as" }, me.user.name),
      h("button", {
        id: "signout", onclick: async () => {
          await send("POST", "/api/arena/signout");
          if (onSignOut) onSignOut(); else window.location.href = "/";
        },
      }, "sign out"))
    : h("span", { class: "whoami" }, ladders, h("a", { href: "/" }, "sign in"));
  container.replaceChildren(h("nav", { class: "topbar" }, links, who));
}
