type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a Renio child process needs from its parent's environment to run at all, when set: the
 * search path, home and temporary directories (the runtimes' caches live there: `DENO_DIR`,
 * `XDG_CACHE_HOME`, `BUN_INSTALL`), locale and time zone, colour settings, and the trusted
 * certificates a TLS upstream may need. Windows' own variables for the same.
 */
export const RUNTIME_VARIABLES: readonly string[] = [
  "PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "TZ", "NO_COLOR", "FORCE_COLOR",
  "DENO_DIR", "XDG_CACHE_HOME", "BUN_INSTALL",
  "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "DENO_CERT",
  "SystemRoot", "USERPROFILE", "APPDATA", "LOCALAPPDATA",
];

/**
 * Prefixes of the runtime's engine options (`BUN_JSC_useFTLJIT`, `MIMALLOC_PURGE_HOLES`,
 * `BUN_CONFIG_MAX_HTTP_REQUESTS`, …): settings of the JavaScript engine, its allocator and its
 * HTTP client, never secrets, passed on so that an operator's engine setting holds in the relays
 * `renio bench` starts too.
 */
export const RUNTIME_VARIABLE_PREFIXES: readonly string[] = ["BUN_JSC_", "MIMALLOC_", "BUN_CONFIG_"];

/** Whether `name` is one of the runtime's variables (by name or prefix). */
export function isRuntimeVariable(name: string): boolean {
  return RUNTIME_VARIABLES.includes(name) || RUNTIME_VARIABLE_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** What a child is given besides the runtime's variables. */
export interface ChildEnvironmentOptions {
  /** The variables its config's `${NAME}` references name (`referencedVariables` of its config text). */
  readonly referenced?: Iterable<string>;
  /** Whether it gets the parent's `RENIO_*` variables (the config overrides, `RENIO_CONFIG`); default false: it runs with exactly the config it is given. */
  readonly renio?: boolean;
}

/**
 * The environment of a child relay (or mock, or passthrough): only what it needs, so a parent's
 * unrelated secrets (provider keys, cloud credentials, tokens) never reach a process that does not use them.
 */
export function childEnvironment(env: Env, options: ChildEnvironmentOptions = {}): Record<string, string> {
  const referenced = new Set(options.referenced ?? []);
  const passed = (name: string, value: string | undefined): value is string =>
    value !== undefined && (isRuntimeVariable(name) || referenced.has(name) || (options.renio === true && name.startsWith("RENIO_")));
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => passed(...entry)));
}
