/**
 * AWS Signature Version 4 (header form), written against the AWS spec: canonical request,
 * string to sign, signing key derived by HMAC-SHA256 over date, region, service and
 * "aws4_request". WebCrypto only, so it runs unchanged on every runtime.
 */

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials' token, sent (and signed) as `x-amz-security-token`. */
  readonly sessionToken?: string;
}

export interface SigningRequest {
  readonly method: string;
  readonly url: URL;
  /** Headers to sign besides `host`, `x-amz-date` and the session token (names in any case). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array<ArrayBuffer>;
  readonly region: string;
  readonly service: string;
  readonly now: Date;
}

const encoder = new TextEncoder();

/** The headers to add to the request: `x-amz-date`, `authorization` and, with a session token, `x-amz-security-token`. */
export async function signV4(request: SigningRequest, credentials: AwsCredentials): Promise<Record<string, string>> {
  const amzDate = request.now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const date = amzDate.slice(0, 8);
  const added: Record<string, string> = { "x-amz-date": amzDate };
  if (credentials.sessionToken) added["x-amz-security-token"] = credentials.sessionToken;
  const headers = new Map<string, string>([["host", request.url.host]]);
  for (const [name, value] of Object.entries({ ...request.headers, ...added })) {
    headers.set(name.toLowerCase(), value.trim().replace(/ +/g, " "));
  }
  const names = [...headers.keys()].sort();
  const signedHeaders = names.join(";");
  const canonical = [
    request.method.toUpperCase(),
    canonicalPath(request.url.pathname),
    canonicalQuery(request.url.searchParams),
    names.map((name) => `${name}:${headers.get(name)}\n`).join(""),
    signedHeaders,
    await sha256Hex(request.body),
  ].join("\n");
  const scope = `${date}/${request.region}/${request.service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256Hex(encoder.encode(canonical))].join("\n");
  let key: ArrayBuffer = encoder.encode(`AWS4${credentials.secretAccessKey}`).buffer;
  for (const part of [date, request.region, request.service, "aws4_request"]) key = await hmac(key, part);
  const signature = hex(await hmac(key, stringToSign));
  added["authorization"] =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return added;
}

/** RFC 3986 encoding as SigV4 wants it: unreserved characters kept, the rest %XX upper-case. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Each (already URL-encoded) path segment encoded once more, as every service but S3 expects. */
function canonicalPath(pathname: string): string {
  return pathname === "" ? "/" : pathname.split("/").map(uriEncode).join("/");
}

function canonicalQuery(params: URLSearchParams): string {
  const pairs = [...params].map(([k, v]) => [uriEncode(k), uriEncode(v)] as const);
  pairs.sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join("&");
}

async function hmac(key: ArrayBuffer, data: string): Promise<ArrayBuffer> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", imported, encoder.encode(data));
}

async function sha256Hex(data: Uint8Array<ArrayBuffer>): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", data));
}

function hex(buffer: ArrayBuffer): string {
  let out = "";
  for (const byte of new Uint8Array(buffer)) out += byte.toString(16).padStart(2, "0");
  return out;
}
