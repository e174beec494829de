/** The admin token every test relay with admin routes is configured with. */
export const ADMIN_TOKEN = "admin-token-for-tests-0123456789";

/** An admin API answer: status and parsed JSON body. */
export interface AdminAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** Calls the admin API of the relay at `url` with the test admin token (`body` sent as JSON, a string as is). */
export async function admin<T = Record<string, unknown>>(url: string, method: string, path: string, body?: unknown): Promise<AdminAnswer<T>> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" } };
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(`${url}/admin${path}`, init);
  return { status: response.status, body: (await response.json()) as T };
}

/** One row of `GET /admin/budgets`. */
export interface ListedBudget {
  budgetId: string;
  period: string;
  source: "config" | "store" | null;
  scope: unknown;
  mode: string | null;
  paused: boolean;
  limit: number;
  spent: number;
  reserved: number;
  remaining: number;
}

/** `GET /admin/budgets`, by budget id (the current period's row of each). */
export async function listedBudgets(url: string): Promise<Map<string, ListedBudget>> {
  const { status, body } = await admin<{ data: ListedBudget[] }>(url, "GET", "/budgets");
  if (status !== 200) throw new Error(`GET /admin/budgets answered ${status}`);
  return new Map(body.data.map((row) => [row.budgetId, row]));
}

/** The error envelope's code and message of an admin answer. */
export function errorIn(answer: AdminAnswer): { code: string; message: string } {
  const error = (answer.body as { error?: { code?: string; message?: string } }).error;
  return { code: error?.code ?? "", message: error?.message ?? "" };
}
