// The arena's forms and cards: a form shows the server's error below it (or what was done),
// and keeps its button disabled while its request runs.

import { h, put } from "./dom.js";

export function card(title, id, ...body) {
  return h("section", { class: "card", id }, h("h2", {}, title), ...body);
}

export function field(label, input, hint) {
  return h("label", {}, label, input, hint ? h("span", { class: "hint" }, hint) : null);
}

/** A form whose submit runs `action(form)`, showing its error (or `ok`'s message) below it. */
export function form(id, fields, button, action) {
  const message = h("div", { class: "form-message", role: "status" });
  const submit = h("button", { class: "primary", type: "submit" }, button);
  const node = h("form", { id, class: "arena-form" }, fields, h("div", { class: "row" }, submit), message);
  node.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    put(message);
    message.className = "form-message";
    try {
      const ok = await action(node);
      if (ok) put(message, h("span", { class: "form-ok" }, ok));
    } catch (e) {
      put(message, h("div", { class: "form-error" }, e.message));
    } finally {
      submit.disabled = false;
    }
  });
  return node;
}
