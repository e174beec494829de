/** `budget.defaultOutputTokens` as configured: one number, or per model with `*` for the rest. */
export type DefaultOutputSetting = number | Readonly<Record<string, number>> | undefined;

/** The output tokens a call that sets no limit is given, by public and upstream model; undefined: the model's maximum. */
export type DefaultOutputTokens = (model: string, upstreamModel: string) => number | undefined;

/** Reads `budget.defaultOutputTokens` once: the public model's entry, else the upstream model's, else `*`. */
export function defaultOutputTokens(setting: DefaultOutputSetting): DefaultOutputTokens {
  if (setting === undefined) return () => undefined;
  if (typeof setting === "number") return () => setting;
  const byModel = new Map(Object.entries(setting));
  const rest = byModel.get("*");
  return (model, upstreamModel) => byModel.get(model) ?? byModel.get(upstreamModel) ?? rest;
}
