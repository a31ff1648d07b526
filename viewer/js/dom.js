// Building DOM and SVG nodes without a framework.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function assign(node, attrs, isSvg) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "class" && !isSvg) {
      node.className = value;
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (!isSvg && key in node && typeof value !== "string") {
      node[key] = value;
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  return node;
}

/** An HTML element: h("a", {href: "/"}, "home"). */
export function h(tag, attrs, ...children) {
  return append(assign(document.createElement(tag), attrs, false), children);
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  return append(assign(document.createElementNS(SVG_NS, tag), attrs, true), children);
}

/** Replaces a node's children; null, undefined and false children are left out. */
export function put(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

export function byId(id) {
  return document.getElementById(id);
}

/** The page's query parameters. */
export function params() {
  return new URLSearchParams(window.location.search);
}
