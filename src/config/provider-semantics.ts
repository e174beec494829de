import type { ConfigProblem } from "./config-error.ts";
import type { Config } from "./config-schema.ts";
import { regionContradiction, regionOfLocation, regionOfUrl } from "../shared/provider-region.ts";

/** Providers: a `region` label must not contradict the region its URL or location names; Azure needs one way to authenticate. */
export function checkProviders(providers: Config["providers"]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [id, provider] of providers) {
    const path = ["providers", id];
    if (provider.baseUrl !== undefined && provider.region !== undefined) {
      const why = regionContradiction(provider.region, regionOfUrl(provider.baseUrl), `baseUrl ${new URL(provider.baseUrl).host}`);
      if (why !== undefined) problems.push({ path: [...path, "region"], message: why });
    }
    if (provider.type !== "azure") continue;
    if (provider.location !== undefined) {
      const named = regionOfLocation(provider.location);
      if (named === undefined) problems.push({ path: [...path, "location"], message: `unknown Azure location "${provider.location}" (e.g. swedencentral, westeurope, eastus)` });
      const why = regionContradiction(provider.region, named, `location ${provider.location}`);
      if (why !== undefined) problems.push({ path: [...path, "region"], message: why });
    }
    if ((provider.apiKey === undefined) === (provider.entra === undefined)) {
      problems.push({ path: [...path, provider.apiKey === undefined ? "apiKey" : "entra"], message: "an azure provider authenticates with exactly one of apiKey or entra" });
    }
  }
  return problems;
}
