/** The fields of one server-sent event that Renio reads. */
export interface SseEventFields {
  /** The `event:` field, or "" when absent. */
  event: string;
  /** The `data:` lines joined with "\n" (the SSE rule), or "" when absent. */
  data: string;
}

/**
 * Parses the text of one event (its lines, in any of the SSE line endings) into its
 * `event` and `data` fields, following the EventSource rules: a field name ends at the
 * first ":", one space after it is dropped, comment lines (":…") are ignored.
 */
export function parseSseEvent(text: string): SseEventFields {
  let event = "";
  let data: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "" || line.charCodeAt(0) === 58 /* : */) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (name === "data") data = data === undefined ? value : `${data}\n${value}`;
    else if (name === "event") event = value;
  }
  return { event, data: data ?? "" };
}
