import type { Kysely } from "kysely";
import type { TeamConfig } from "../../config/attribution-schema.ts";
import { RelayError } from "../../shared/relay-error.ts";
import type { Database } from "../store-schema.ts";
import { bumpVersion } from "./store-budget-definitions.ts";

/** The teams created at run time, by id. */
export async function listTeams(db: Kysely<Database>): Promise<TeamConfig[]> {
  const rows = await db.selectFrom("team_definition").selectAll().orderBy("id").execute();
  return rows.map((row) => ({ id: row.id, projects: JSON.parse(row.projects) as string[] }));
}

/** Creates a team; RelayError 409 `team_exists` when its id is taken. */
export async function createTeam(trx: Kysely<Database>, team: TeamConfig, now: number): Promise<TeamConfig> {
  const inserted = await trx
    .insertInto("team_definition")
    .values({ id: team.id, projects: JSON.stringify(team.projects), created_at: now })
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("id")
    .execute();
  if (inserted.length === 0) throw new RelayError(409, "team_exists", `A team \`${team.id}\` already exists; delete it first to change its projects`);
  await bumpVersion(trx);
  return team;
}

/** Deletes a team; RelayError 404 `team_not_found`. */
export async function deleteTeam(trx: Kysely<Database>, id: string): Promise<TeamConfig> {
  const row = await trx.selectFrom("team_definition").selectAll().where("id", "=", id).executeTakeFirst();
  if (row === undefined) throw new RelayError(404, "team_not_found", `No team \`${id}\` in the store`);
  await trx.deleteFrom("team_definition").where("id", "=", id).execute();
  await bumpVersion(trx);
  return { id: row.id, projects: JSON.parse(row.projects) as string[] };
}
