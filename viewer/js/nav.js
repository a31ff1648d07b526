// The bar at the top of every page.

import { h } from "./dom.js";

export function renderNav(container, crumbs = []) {
  const links = [h("a", { class: "brand", href: "/" }, "Arbiter")];
  for (const crumb of crumbs) {
    links.push(h("span", { class: "sep" }, "/"));
    links.push(crumb.href ? h("a", { href: crumb.href }, crumb.text) : h("span", {}, crumb.text));
  }
  container.replaceChildren(h("nav", { class: "topbar" }, links));
}

/** A message in place of a page that could not be shown, never a blank screen. */
export function renderProblem(container, title, message) {
  container.replaceChildren(
    h("div", { class: "problem", role: "alert" }, h("h2", {}, title), h("p", {}, message)),
  );
}
