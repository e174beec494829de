// DOM building blocks of the dashboard. Every value reaches the page through textContent or an
// attribute set by the DOM API, never through innerHTML: key ids, model names and metadata are
// user data.

/** An element with attributes/properties and children (strings become text nodes). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A figure card: label above, value below (`data-figure` names it for tests and scripts). */
export function card(label, value, figure, title) {
  return el("div", { class: "card" }, el("span", { class: "label", text: label }), el("span", { class: "value", "data-figure": figure, title, text: value }));
}

/** A small status label; `tone` is one of ok, warn, bad, muted. */
export function badge(text, tone, name) {
  return el("span", { class: `badge ${tone}`, "data-badge": name ?? text, text });
}

/** A table sortable by clicking a header; columns: [label, value(row), format?, numeric?]. */
export function table(columns, rows, options = {}) {
  if (rows.length === 0) return el("p", { class: "muted", text: options.empty ?? "Nothing yet." });
  let sortBy = options.sortBy ?? -1;
  let descending = true;
  const sortable = options.sortable !== false;
  const tbody = el("tbody");
  const headers = columns.map(([label, , , numeric], i) =>
    el("th", { scope: "col", class: numeric ? "num" : null, tabindex: sortable ? 0 : null, on: sortable ? { click: () => sort(i), keydown: (e) => e.key === "Enter" && sort(i) } : {} }, label),
  );
  function sort(i) {
    descending = sortBy === i ? !descending : true;
    sortBy = i;
    headers.forEach((th, j) => th.setAttribute("aria-sort", j === i ? (descending ? "descending" : "ascending") : "none"));
    render();
  }
  function cell([, value, format, numeric], row) {
    const shown = (format ?? ((v) => (v === null || v === undefined ? "—" : v)))(value(row), row);
    return el("td", { class: numeric ? "num" : null }, shown instanceof Node ? shown : String(shown));
  }
  function render() {
    const sorted = sortBy < 0 ? rows : [...rows].sort((a, b) => compare(columns[sortBy][1](a), columns[sortBy][1](b)) * (descending ? -1 : 1));
    tbody.replaceChildren(
      ...sorted.map((row) =>
        el("tr", { class: options.onRow ? "clickable" : null, tabindex: options.onRow ? 0 : null, "data-row": options.rowId?.(row), on: options.onRow ? { click: () => options.onRow(row), keydown: (e) => e.key === "Enter" && options.onRow(row) } : {} },
          ...columns.map((column) => cell(column, row)),
        ),
      ),
    );
  }
  render();
  return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, el("tr", {}, headers)), tbody));
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));
}

/** A uPlot line chart of `series` (name → values) over bucket times (epoch ms). */
export function chart(title, times, series, yLabel) {
  const holder = el("div", { class: "chart", "data-chart": title });
  const width = () => Math.max(260, holder.clientWidth || Math.min(window.innerWidth - 48, 1100));
  const palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea"];
  const dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  const axis = dark ? { stroke: "#d1d5db", grid: { stroke: "#374151" }, ticks: { stroke: "#374151" } } : {};
  const opts = {
    title,
    width: Math.min(window.innerWidth - 48, 1100),
    height: 220,
    scales: { x: { time: true } },
    axes: [{ ...axis }, { ...axis, label: yLabel, size: 60 }],
    series: [{}, ...Object.keys(series).map((label, i) => ({ label, stroke: palette[i % palette.length], width: 2, spanGaps: true, points: { size: 6 } }))],
  };
  const data = [times.map((t) => t / 1000), ...Object.values(series)];
  requestAnimationFrame(() => {
    if (!holder.isConnected) return;
    const plot = new uPlot(opts, data, holder);
    const resize = () => (holder.isConnected ? plot.setSize({ width: width(), height: 220 }) : window.removeEventListener("resize", resize));
    resize();
    window.addEventListener("resize", resize);
  });
  return holder;
}

/** Buttons choosing a time range (`ranges`: name → ms). */
export function rangePicker(ranges, current, onChange) {
  return el("div", { class: "range", role: "group", "aria-label": "Time range" },
    ...Object.keys(ranges).map((name) => el("button", { type: "button", class: name === current ? "active" : null, "aria-pressed": name === current, on: { click: () => onChange(name) } }, `Last ${name}`)),
  );
}

/**
 * Asks before an action, in the page's own dialog (on-screen at every width): resolves true
 * when the person confirms.
 */
export function confirmAction(title, text, confirmLabel) {
  return new Promise((resolve) => {
    const dialog = el("dialog", { class: "confirm", "aria-label": title },
      el("h2", { text: title }),
      el("p", { text }),
    );
    const close = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    dialog.append(el("div", { class: "actions" },
      el("button", { type: "button", "data-action": "cancel", on: { click: () => close(false) } }, "Cancel"),
      el("button", { type: "button", class: "danger", "data-action": "confirm", on: { click: () => close(true) } }, confirmLabel),
    ));
    dialog.addEventListener("cancel", () => resolve(false));
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** Shows `content` in a modal panel (journal entries, a new key's secret); closed by its button or Escape. */
export function showPanel(title, content, name) {
  const dialog = el("dialog", { class: "panel", "data-panel": name, "aria-label": title });
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  dialog.append(
    el("div", { class: "panel-head" }, el("h2", { text: title }), el("button", { type: "button", class: "close", "aria-label": "Close", on: { click: close } }, "Close")),
    el("div", { class: "panel-body" }, content),
  );
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** A labelled form field. */
export function field(label, input, hint) {
  return el("label", { class: "field" }, el("span", { text: label }), input, hint ? el("small", { class: "muted", text: hint }) : null);
}
