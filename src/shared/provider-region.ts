import { lookupTable } from "./own-keys.ts";
/**
 * Which Renio region (`eu`, `us`, `uk`, `asia`, …) a cloud location or a provider URL names.
 * Renio's region labels are free strings; these are the geographies the checks know.
 */

/** Azure locations (`az account list-locations`) by geography. */
const AZURE_LOCATIONS = lookupTable({
  westeurope: "eu", northeurope: "eu", swedencentral: "eu", francecentral: "eu", francesouth: "eu",
  germanywestcentral: "eu", germanynorth: "eu", italynorth: "eu", polandcentral: "eu", spaincentral: "eu",
  austriaeast: "eu", belgiumcentral: "eu", denmarkeast: "eu",
  switzerlandnorth: "ch", switzerlandwest: "ch", norwayeast: "no", norwaywest: "no", uksouth: "uk", ukwest: "uk",
  eastus: "us", eastus2: "us", westus: "us", westus2: "us", westus3: "us", centralus: "us",
  northcentralus: "us", southcentralus: "us", westcentralus: "us",
  canadaeast: "ca", canadacentral: "ca", brazilsouth: "sa", japaneast: "asia", japanwest: "asia",
  koreacentral: "asia", southindia: "asia", centralindia: "asia", southeastasia: "asia", eastasia: "asia",
  australiaeast: "au", uaenorth: "me", southafricanorth: "af",
});

/** AWS (`eu-central-1`) and Google Cloud (`europe-west4`) location prefixes by geography. */
const LOCATION_PREFIXES = lookupTable({
  eu: "eu", europe: "eu", us: "us", ca: "ca", northamerica: "ca", sa: "sa", southamerica: "sa",
  ap: "asia", asia: "asia", australia: "au", me: "me", il: "me", af: "af", africa: "af", mx: "mx",
});

/** The region a cloud location names (`swedencentral`, `eu-central-1`, `europe-west4`, `eu`), or undefined. */
export function regionOfLocation(location: string): string | undefined {
  const name = location.toLowerCase();
  const azure = AZURE_LOCATIONS.get(name);
  if (azure !== undefined) return azure;
  if (name === "europe-west6") return "ch"; // Zürich
  if (name === "europe-west2") return "uk"; // London
  return LOCATION_PREFIXES.get(name.split("-")[0] ?? "");
}

const AWS_HOST = /\.([a-z]{2}(?:-gov)?-[a-z]+-\d)\.amazonaws\.com$/;
const GCP_HOST = /^([a-z]+-[a-z]+\d+)-aiplatform\.googleapis\.com$/;
/** Data-residency hosts such as OpenAI's `eu.api.openai.com` or `api.eu.example.com`. */
const RESIDENCY_LABEL = /(?:^|\.)(eu|us)\./;

/** The region a provider URL's host names (AWS, Vertex AI, `eu.`/`us.` residency hosts), or undefined. */
export function regionOfUrl(url: string): string | undefined {
  const host = new URL(url).hostname.toLowerCase();
  const location = AWS_HOST.exec(host)?.[1] ?? GCP_HOST.exec(host)?.[1];
  if (location !== undefined) return regionOfLocation(location);
  return RESIDENCY_LABEL.exec(host)?.[1];
}

/**
 * Why a provider's `region` label contradicts the region its URL or location names, or undefined.
 * Labels Renio does not know as a geography (`global`, `local`, a custom name) are never contradicted.
 */
export function regionContradiction(label: string, named: string | undefined, where: string): string | undefined {
  const claimed = regionOfLocation(label);
  if (named === undefined || claimed === undefined || claimed === named) return undefined;
  return `region "${label}" contradicts ${where}, which is in region "${named}"`;
}
