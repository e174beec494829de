import type { AlertEvent, AlertOutbox } from "../alerts/alert-outbox.ts";
import type { BudgetStatus } from "../budgets/budget-status.ts";
import type { ReportRequest, SpendReport } from "../budgets/spend-report.ts";
import type { JournalPage, JournalQuery, QuarantinedRecord, QuarantinePage } from "../journal/journal-store.ts";
import type { JournalEntry } from "../shared/journal-records.ts";
import { RelayRefusal, type AdminCall } from "./admin-target.ts";
import type { JournalCommandStore } from "./cli-journal.ts";

/** The admin API's page size limit for lists. */
const MAX_PAGE = 1000;

/** What `renio budget status|report` read, from a store or a relay. */
export interface BudgetReader {
  status(): Promise<BudgetStatus[]>;
  report(request: ReportRequest): Promise<SpendReport>;
}

/** The journal and its quarantine through `GET /admin/journal` and `GET /admin/quarantine` (a limit above the API's page size is read page by page). */
export function relayJournal(call: AdminCall): JournalCommandStore {
  return {
    listJournal: async (query: JournalQuery): Promise<JournalPage> => {
      if (query.id !== undefined) {
        try {
          const { object: _object, ...entry } = await call<JournalEntry & { object: string }>("GET", `journal/${encodeURIComponent(query.id)}`);
          return { entries: [entry], nextCursor: null };
        } catch (error) {
          if (error instanceof RelayRefusal && error.status === 404) return { entries: [], nextCursor: null };
          throw error;
        }
      }
      const entries: JournalEntry[] = [];
      let cursor = query.cursor;
      do {
        const params = new URLSearchParams({ limit: String(Math.min(MAX_PAGE, query.limit - entries.length)) });
        const filters = { since: query.since, until: query.until, key: query.keyId, request_id: query.requestId, outcome: query.outcome, cursor };
        for (const [name, value] of Object.entries(filters)) if (value !== undefined) params.set(name, String(value));
        const page = await call<{ data: JournalEntry[]; next_cursor: string | null }>("GET", `journal?${params}`);
        entries.push(...page.data);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined && entries.length < query.limit);
      return { entries, nextCursor: cursor ?? null };
    },
    listQuarantine: async (query): Promise<QuarantinePage> => {
      const params = new URLSearchParams({ limit: String(Math.min(MAX_PAGE, query.limit)) });
      if (query.since !== undefined) params.set("since", String(query.since));
      if (query.cursor !== undefined) params.set("cursor", query.cursor);
      const page = await call<{ data: Array<Omit<QuarantinedRecord, "at"> & { at: string }>; next_cursor: string | null }>("GET", `quarantine?${params}`);
      return { records: page.data.map((r) => ({ ...r, at: Date.parse(r.at) })), nextCursor: page.next_cursor };
    },
  };
}

/** The alert outbox through `GET /admin/alerts`. */
export function relayAlerts(call: AdminCall): Pick<AlertOutbox, "listAlerts"> {
  return {
    listAlerts: async ({ status, limit }) => {
      const params = new URLSearchParams({ limit: String(Math.min(MAX_PAGE, limit)) });
      if (status !== undefined) params.set("status", status);
      return (await call<{ data: AlertEvent[] }>("GET", `alerts?${params}`)).data;
    },
  };
}

/** Budget status and the report through `GET /admin/budgets/status` and `GET /admin/report`. */
export function relayBudgets(call: AdminCall): BudgetReader {
  return {
    status: async () => (await call<{ data: BudgetStatus[] }>("GET", "budgets/status")).data,
    report: async (request) => {
      const params = new URLSearchParams({ by: request.by, period: request.period });
      if (request.since !== undefined) params.set("since", String(request.since));
      if (request.until !== undefined) params.set("until", String(request.until));
      const { object: _object, ...report } = await call<SpendReport & { object: string }>("GET", `report?${params}`);
      return report as SpendReport;
    },
  };
}
