// Live: the newest calls, polled every 2 seconds while on screen.
import { api } from "./dashboard-api.js";
import { el } from "./dashboard-dom.js";
import { section } from "./dashboard-section.js";
import { entryTable } from "./journal-view.js";

export function live(page) {
  page.append(
    el("h1", { text: "Live" }),
    section("Newest calls", async () => entryTable((await api("/admin/journal?limit=25")).data, "No calls yet."), 2000),
  );
}
