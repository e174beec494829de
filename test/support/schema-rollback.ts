/**
 * What schema 11 adds (who a call is for, a budget's cheaper model, overrides, teams), dropped
 * again: for tests that take a store back to an earlier schema to test a migration.
 */
export async function dropSchema11(exec: (sql: string) => Promise<unknown>): Promise<void> {
  for (const index of ["journal_entry_end_user_time", "journal_entry_tags_time"]) await exec(`drop index ${index}`);
  for (const column of ["end_user", "team", "tags", "downgraded_from"]) await exec(`alter table journal_entry drop column ${column}`);
  await exec("alter table budget_definition drop column on_exceeded");
  await exec("drop table budget_override");
  await exec("drop table team_definition");
}
