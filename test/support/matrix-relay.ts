import type { Store } from "../../src/storage/store.ts";
import { startFamilies, type Families } from "./matrix-providers.ts";
import { openRelay } from "./with-relay.ts";

/** Every provider family behind one relay (SQLite, a strict budget so every call reserves). */
export interface MatrixRelay {
  readonly families: Families;
  readonly url: string;
  readonly store: Store;
  stop(): Promise<void>;
}

export async function startMatrixRelay(): Promise<MatrixRelay> {
  const families = await startFamilies();
  try {
    // The families configure every provider: the harness's default mock provider goes unused.
    const opened = await openRelay(families.get("OpenAI").url, {
      ...families.config,
      budgets: [{ id: "strict", scope: "total", period: "total", limit: 100, mode: "strict" }],
    });
    return {
      families,
      url: opened.relay.url,
      store: opened.store,
      async stop() {
        try {
          await opened.stop();
        } finally {
          await families.stop();
        }
      },
    };
  } catch (error) {
    await families.stop();
    throw error;
  }
}
