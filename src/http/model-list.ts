import type { WireFormat } from "../shared/usage.ts";

const CREATED = 1_700_000_000;

/** The models a key may use, in the listing shape of the caller's wire format. */
export function modelList(models: readonly string[], wire: WireFormat): unknown {
  if (wire === "anthropic") {
    return {
      data: models.map((id) => ({ type: "model", id, display_name: id, created_at: new Date(CREATED * 1000).toISOString() })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    };
  }
  return { object: "list", data: models.map((id) => ({ id, object: "model", created: CREATED, owned_by: "renio" })) };
}
