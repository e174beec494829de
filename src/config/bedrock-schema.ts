import { z } from "zod";
import { nameText } from "./schema-text.ts";

/** An AWS region name such as eu-central-1 or us-gov-west-1. */
const AWS_REGION = /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d+$/;

/** The data-residency label of an AWS region: `eu` for every eu-*, `us` for us-*, else its geography prefix. */
export function regionLabelOf(awsRegion: string): string {
  return awsRegion.split("-")[0]!;
}

/**
 * AWS Bedrock (Converse / ConverseStream, SigV4-signed). `region`, the label keys' `regions`
 * match against, defaults to the AWS region's geography (`eu` for eu-central-1) and must not
 * contradict it. `baseUrl` overrides https://bedrock-runtime.{awsRegion}.amazonaws.com.
 */
export const bedrockFields = {
  type: z.literal("bedrock").describe("`openai` (any OpenAI-compatible `baseUrl`), `anthropic`, `azure`, `gemini`, `bedrock` or `mock`"),
  awsRegion: z.string().regex(AWS_REGION, "must be an AWS region name such as eu-central-1").describe("`bedrock`: the AWS region (e.g. `eu-central-1`)"),
  region: nameText().optional().describe("the region label keys' `regions` match; must not contradict the region the URL or location names"),
  accessKeyId: z.string().min(1).describe("`bedrock`: static credentials (usually `${ENV}`)"),
  secretAccessKey: z.string().min(1).describe("`bedrock`: static credentials (usually `${ENV}`)"),
  sessionToken: z.string().min(1).optional().describe("`bedrock`: for temporary credentials"),
  baseUrl: z.url().optional().describe("the provider's URL (`openai`: including `/v1`; `azure`: the resource endpoint; `mock`: a `renio mock`)"),
};

/** Rejects a `region` label that names another geography than `awsRegion`. */
export function checkBedrockRegion(value: { awsRegion: string; region?: string | undefined }, ctx: z.RefinementCtx): void {
  const label = regionLabelOf(value.awsRegion);
  if (value.region !== undefined && value.region !== label && value.region !== value.awsRegion) {
    ctx.addIssue({
      code: "custom",
      path: ["region"],
      message: `"${value.region}" contradicts awsRegion ${value.awsRegion} (its region is "${label}")`,
    });
  }
}
