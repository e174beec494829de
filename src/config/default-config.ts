/** The development key of the embedded default (valid only there, and only on loopback). */
export const DEV_KEY = "renio-dev-key-not-secret";

/**
 * The embedded default: `renio serve` without a config. Loopback only, the in-process mock
 * provider, SQLite under ./.renio/, a development key and a strict monthly total budget.
 */
export const DEFAULT_CONFIG = {
  server: { host: "127.0.0.1", port: 8080 },
  storage: { type: "sqlite", path: ".renio/renio.db" },
  providers: { mock: { type: "mock" } },
  models: {
    "mock-gpt": { provider: "mock" },
    "mock-claude": { provider: "mock" },
    "gpt-4o-mini": { provider: "mock" },
    "claude-sonnet-4-5": { provider: "mock" },
  },
  keys: [{ id: "dev", secret: DEV_KEY, project: "dev" }],
  budgets: [{ id: "total", scope: "total", period: "month", limit: 100 }],
} as const;
