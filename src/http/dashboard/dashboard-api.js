// The dashboard's access to the admin API. Two ways in: an admin token (kept in this tab's
// sessionStorage, sent as a Bearer header; no cookie, so nothing can be forged cross-site), or a
// session from the identity provider (an HttpOnly cookie the page never sees, and a CSRF token
// sent with every change).

const TOKEN_KEY = "renio.adminToken";

/** Who is signed in: { method, actor, roles, csrfToken? } or null. */
let who = null;
/** Told of every answer (true) or relay-down (false): the page's connection banner. */
let onConnection = () => {};

/** The relay answered 404 for this path: a capability this relay does not have. */
export class Unavailable extends Error {}
/** Not signed in (any more): the page goes back to its sign-in form. */
export class SignedOut extends Error {}
/** The relay did not answer at all (stopped, restarting, network gone). */
export class RelayDown extends Error {}
/** The relay refused the action: its message says why (bad input, a missing role). */
export class Refused extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const session = () => who;
export const setConnectionListener = (listener) => (onConnection = listener);

/** True when the person may change `what` (`keys` or `budgets`): that role or `admin`. */
export function may(what) {
  return who !== null && (who.roles.includes(what) || who.roles.includes("admin"));
}

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const base = token ? { authorization: `Bearer ${token}` } : {};
  return { ...base, ...extra };
}

async function request(method, path, body, extra = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers({ ...(body === undefined ? {} : { "content-type": "application/json" }), ...(method !== "GET" && who?.csrfToken ? { "x-renio-csrf": who.csrfToken } : {}), ...extra }),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    onConnection(false);
    throw new RelayDown("The relay is not answering: it may be stopped or restarting. The page retries by itself.");
  }
  onConnection(true);
  if (response.status === 401) {
    const ended = who?.method === "oidc" ? "Your session has ended; sign in again." : "That admin token was not accepted.";
    who = null;
    throw new SignedOut(ended);
  }
  if (response.status === 404 && method === "GET") throw new Unavailable(`${path.split("?")[0]} is not available on this relay`);
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw new Refused(answer?.error?.message ?? `${method} ${path.split("?")[0]} answered ${response.status}`, response.status, answer?.error?.code);
  return answer;
}

/** GET an admin API path as JSON. */
export const api = (path) => request("GET", path);
/** A change through the admin API (POST, PATCH, DELETE) with a JSON body. */
export const send = (method, path, body, extra) => request(method, path, body, extra);

/**
 * Finds out who is signed in (a stored admin token, or the session cookie) and whether the
 * identity provider is offered; resolves { signedIn, oidc }.
 */
export async function refreshSession() {
  let answer;
  try {
    const response = await fetch("/dashboard/auth/session", { headers: headers(), credentials: "same-origin" });
    answer = await response.json();
  } catch {
    onConnection(false);
    throw new RelayDown("The relay is not answering: it may be stopped or restarting.");
  }
  onConnection(true);
  who = answer.signedIn ? { method: answer.method, actor: answer.actor, roles: answer.roles, csrfToken: answer.csrfToken ?? null } : null;
  if (!answer.signedIn) sessionStorage.removeItem(TOKEN_KEY);
  return { signedIn: answer.signedIn, oidc: answer.oidc };
}

/** Signs in with an admin token: resolves true when the relay accepts it. */
export async function signInWithToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  const { signedIn } = await refreshSession();
  return signedIn;
}

/** Ends the session (the cookie's at the relay; a token's in this tab). */
export async function signOut() {
  const ending = who;
  who = null;
  sessionStorage.removeItem(TOKEN_KEY);
  if (ending?.method === "oidc") {
    await fetch("/dashboard/auth/logout", { method: "POST", headers: { "x-renio-csrf": ending.csrfToken }, credentials: "same-origin" }).catch(() => undefined);
  }
}
