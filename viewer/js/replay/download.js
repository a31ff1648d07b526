// Saving text the page holds as a file.

import { h } from "../dom.js";

/** Offers `text` to the user as a download named `name`. */
export function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
