// A titled section of a page whose body is loaded from the admin API, optionally again and again.
import { RelayDown, SignedOut, Unavailable } from "./dashboard-api.js";
import { el } from "./dashboard-dom.js";
import { localTime } from "./dashboard-format.js";

/** How soon a section that could not reach the relay tries again. */
const RETRY_MS = 5000;

let onSignedOut = () => {};
/** Where a section sends a signed-out error (the shell shows the sign-in form). */
export const setSignedOutHandler = (handler) => (onSignedOut = handler);

/** An error in place of content: "not available" is muted, a refusal is red. */
export function notice(error) {
  return el("p", { class: error instanceof Unavailable ? "unavailable" : "error", role: "status", text: error.message });
}

/**
 * A section whose body is filled by `load` (its failure shows in place: one missing endpoint
 * never breaks the page). With `refreshMs`, it loads again on that interval while on screen;
 * when the relay is down it keeps the last data and says since when.
 */
export function section(title, load, refreshMs) {
  const body = el("div", { class: "section-body" }, el("p", { class: "muted", text: "Loading…" }));
  const stamp = el("span", { class: "stamp muted", "data-updated": "" });
  const node = el("section", {}, el("div", { class: "section-head" }, el("h2", { text: title }), refreshMs ? stamp : null), body);
  let loadedOnce = false;
  let down = false;
  let timer;
  const run = () =>
    Promise.resolve()
      .then(load)
      .then((content) => {
        down = false;
        body.replaceChildren(...[content].flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
        loadedOnce = true;
        stamp.textContent = `Updated ${localTime(Date.now())} · every ${refreshMs / 1000} s`;
        stamp.classList.remove("stale");
      })
      .catch((error) => {
        if (error instanceof SignedOut) return onSignedOut(error.message);
        down = error instanceof RelayDown;
        if (error instanceof RelayDown && loadedOnce) {
          stamp.textContent = `Relay not answering · showing data from ${stamp.dataset.at ?? "before"}`;
          stamp.classList.add("stale");
          return;
        }
        body.replaceChildren(notice(error));
      })
      .finally(() => {
        if (loadedOnce && !stamp.classList.contains("stale")) stamp.dataset.at = localTime(Date.now());
        // A section that refreshes loads again on its interval; any other retries while the relay is down.
        const delay = refreshMs ?? (down ? RETRY_MS : undefined);
        if (delay === undefined) return;
        clearTimeout(timer);
        // Stops by itself once the page has moved on (the node left the document).
        timer = setTimeout(() => (node.isConnected ? run() : undefined), delay);
      });
  run();
  return node;
}
