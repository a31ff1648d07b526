// The arena's bar at the top: where one is, who is signed in, the admin page, signing out.

import { h } from "./dom.js";
import { send } from "./arena-api.js";

export function arenaNav(container, me, crumbs, onSignOut) {
  const links = [h("a", { class: "brand", href: "/" }, "Arbiter arena")];
  for (const crumb of crumbs) {
    links.push(h("span", { class: "sep" }, "/"));
    links.push(crumb.href ? h("a", { href: crumb.href }, crumb.text) : h("span", {}, crumb.text));
  }
  const who = me.user
    ? h("span", { class: "whoami" },
      me.user.admin ? h("a", { href: "/arena-admin.html", id: "admin-link" }, "admin") : null,
      h("span", { id: "signed-in-as" }, me.user.name),
      h("button", {
        id: "signout", onclick: async () => {
          await send("POST", "/api/arena/signout");
          if (onSignOut) onSignOut(); else window.location.href = "/";
        },
      }, "sign out"))
    : h("span", { class: "whoami" }, h("a", { href: "/" }, "sign in"));
  container.replaceChildren(h("nav", { class: "topbar" }, links, who));
}
