const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's x-request-id when it is a sane token, else the generated one. */
export function requestIdFor(headers: Headers, generated: string): string {
  const given = headers.get("x-request-id");
  return given !== null && ACCEPTED.test(given) ? given : generated;
}
