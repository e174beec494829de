import { DETECTOR_GROUPS, type BuiltInDetectorId, type CustomDetectorConfig } from "../config/guardrails-schema.ts";
import { email, ipAddress, phone } from "./contact-detectors.ts";
import { anthropicKey, awsAccessKey, githubToken, googleApiKey, jwt, openAiKey, privateKey, slackToken, stripeKey } from "./credential-detectors.ts";
import { customDetector } from "./custom-detectors.ts";
import type { Detector } from "./detector.ts";
import { belgianNumber, bsn, codiceFiscale, dni, nir, pesel, steuerId } from "./national-id-detectors.ts";
import { iban, paymentCard } from "./payment-detectors.ts";

/** Every built-in detector by its id (the config's names: a missing one fails to compile). */
export const BUILT_IN: Readonly<Record<BuiltInDetectorId, Detector>> = {
  email,
  phone,
  iban,
  payment_card: paymentCard,
  ip_address: ipAddress,
  nl_bsn: bsn,
  es_dni: dni,
  it_codice_fiscale: codiceFiscale,
  fr_nir: nir,
  de_steuer_id: steuerId,
  be_national_number: belgianNumber,
  pl_pesel: pesel,
  openai_key: openAiKey,
  anthropic_key: anthropicKey,
  aws_access_key: awsAccessKey,
  github_token: githubToken,
  google_api_key: googleApiKey,
  stripe_key: stripeKey,
  slack_token: slackToken,
  private_key: privateKey,
  jwt,
};

/** Resolves the names a policy lists (built-in ids, groups, custom ids) to detectors, each once. */
export type DetectorResolver = (names: readonly string[]) => Detector[];

/** The resolver of a config's custom detectors (built once per config: a custom pattern is compiled once). */
export function detectorResolver(custom: readonly CustomDetectorConfig[]): DetectorResolver {
  const own = new Map(custom.map((config) => [config.id, customDetector(config)]));
  const byName = (name: string): Detector[] => {
    // plain-object: read only after Object.hasOwn, so an inherited member is never found
    if (Object.hasOwn(DETECTOR_GROUPS, name)) return DETECTOR_GROUPS[name]!.map((id) => BUILT_IN[id]);
    if (Object.hasOwn(BUILT_IN, name)) return [BUILT_IN[name as BuiltInDetectorId]];
    const found = own.get(name);
    // The config schema refused unknown names.
    if (found === undefined) throw new Error(`unknown detector "${name}"`);
    return [found];
  };
  return (names) => [...new Set(names.flatMap(byName))];
}
