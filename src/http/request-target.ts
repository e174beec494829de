import { TEXT_BOUNDS, textProblem } from "../shared/input-text.ts";
import { RelayError } from "../shared/relay-error.ts";

/** Only what needs a closer look: an escape, a space or control character, or a non-ASCII character. */
const NEEDS_DECODING = /[%\u0000-\u0020\u007f-\uffff]/;

/**
 * The request target (path and query) of `url` by the input rules (shared/input-text.ts), before
 * any route sees it: 414 `uri_too_long` above TEXT_BOUNDS.url characters, 400 `invalid_request`
 * for a path segment or query parameter that decodes to a control character or a lone surrogate,
 * or a query value above TEXT_BOUNDS.queryValue (path segments are bounded by the name bound).
 * Undefined when it is fine; a short plain target (a model call's) costs one regular-expression test.
 */
export function requestTargetRefusal(url: string): RelayError | undefined {
  const target = targetOf(url);
  if (target.length > TEXT_BOUNDS.url) {
    return new RelayError(414, "uri_too_long", `The request target (path and query) is ${target.length} characters long; the limit is ${TEXT_BOUNDS.url}`);
  }
  // A short target of plain characters cannot break a rule (every part is within every bound).
  if (target.length <= TEXT_BOUNDS.name && !NEEDS_DECODING.test(target)) return undefined;
  const queryAt = target.indexOf("?");
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  const query = queryAt < 0 ? "" : target.slice(queryAt + 1);
  const segments = path.split("/");
  for (const [index, segment] of segments.entries()) {
    const problem = textProblem(decoded(segment), TEXT_BOUNDS.name);
    if (problem !== undefined) return new RelayError(400, "invalid_request", `Path segment ${index} ${problem}`);
  }
  for (const [name, value] of new URLSearchParams(query)) {
    const nameProblem = textProblem(name, TEXT_BOUNDS.name);
    if (nameProblem !== undefined) return new RelayError(400, "invalid_request", `A query parameter name ${nameProblem}`);
    const problem = textProblem(value, TEXT_BOUNDS.queryValue);
    if (problem !== undefined) return new RelayError(400, "invalid_request", `Query parameter \`${name}\` ${problem}`);
  }
  return undefined;
}

/** The path and query of an absolute URL (`http://host/path?query` → `/path?query`), without its fragment. */
export function targetOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  const target = start < 0 ? "/" : url.slice(start);
  const hash = target.indexOf("#");
  return hash < 0 ? target : target.slice(0, hash);
}

/** A path segment as routes see it: percent-decoded, or as sent when it is not valid percent-encoded UTF-8. */
function decoded(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
