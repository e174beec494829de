/** What `renio <command> --help` and the main `renio --help` say about one command. */
interface CommandHelp {
  /** Usage lines, each after `renio `; a `\n` continues a line (indented under its options). */
  readonly synopsis: readonly string[];
  /** What it does, one line. */
  readonly summary: string;
  /** Whether it takes a TARGET (a relay or a store), explained after the summary. */
  readonly targeted?: boolean;
}

const SERVE: CommandHelp = {
  synopsis: ["serve [--config FILE] [--host H] [--port N]\n[--log-format json|text] [--log-level error|warn|info|debug]"],
  summary:
    "run the relay (without --config or RENIO_CONFIG, or with --config default: embedded default on 127.0.0.1:8080, mock provider, dashboard behind an admin token it prints); " +
    "flag > RENIO_* env > file; SIGHUP reloads the config file",
};
const MOCK: CommandHelp = {
  synopsis: [
    "mock [--port N] [--host H] [--latency-ms 2] [--chunk-interval-ms 1] [--chunks 8] [--answer sentence|fill]\n" +
      "[--fault-status N] [--fault-delay-ms N] [--fault-cut N] [--fault-slow-ms N] [--fault-reset]\n" +
      "[--script '{\"failFirst\":2,\"status\":503}']   (a fault script; POST /_mock/script replaces it)",
  ],
  summary: "run the built-in mock provider (OpenAI and Anthropic wire formats)",
};
const BENCH: CommandHelp = {
  synopsis: [
    "bench [--concurrency 1,16,64] [--requests 3000] [--warmup 300] [--mode json|stream|both]\n" +
      "[--journal fsync|process|off] [--budget strict|observe|off] [--target URL --header 'N: v']\n" +
      "[--baseline passthrough] [--rounds 10] [--max-seconds 1800] [--json | --markdown] [--out FILE]",
  ],
  summary: "measure the relay's overhead against the mock, direct vs via Renio (see renio bench --help)",
};
const PASSTHROUGH: CommandHelp = {
  synopsis: ["passthrough --upstream URL [--host H] [--port N]"],
  summary: "a bare fetch passthrough, the floor renio bench compares against",
};
const CONFIG: CommandHelp = {
  synopsis: ["config check FILE", "config schema"],
  summary: "check: validate a JSONC or YAML config (FILE or RENIO_CONFIG, env applied; every problem, exit 2); schema: its JSON Schema",
};
/** What `[TARGET]` is, in every usage that takes one (cli-target.ts). */
const TARGET_HELP =
  "TARGET: --url URL (a running relay; admin token in RENIO_ADMIN_TOKEN) or --config FILE (its store; --config default:\n" +
  "        the embedded default's, in the folder `renio serve` ran in); else RENIO_URL or RENIO_CONFIG; else renio.yaml,\n" +
  "        renio.yml, renio.jsonc or renio.json in the working folder; else exit 2. The command names on stderr what it acted on.";
const JOURNAL: CommandHelp = {
  synopsis: [
    "journal list [TARGET] [--since ISO|2h|7d] [--until ISO|2h] [--key ID] [--request-id ID] [--outcome X] [--limit N] [--json]",
    "journal export [TARGET] --format jsonl|csv [--since …] [--until …] [--key ID] [--request-id ID] [--outcome X]",
    "journal show ID [TARGET] [--json]          one entry with its upstream attempts",
    "journal quarantine [TARGET] [--since ISO|2h|7d] [--limit N] [--json]   records the database refused",
  ],
  summary: "read the journal",
  targeted: true,
};
const BUDGET: CommandHelp = {
  synopsis: [
    "budget status [TARGET] [--json]",
    "budget reconcile [TARGET] [--cost-at reserved|zero] [--json]",
    "budget report [TARGET] [--by key|project|model|budget|end-user|team|tag] [--period day|month]\n[--since ISO|2h|7d] [--until ISO|2h] [--json]",
    "budget list [TARGET] [--json]",
    "budget set ID [--scope total|project:NAME|key:ID|team:ID|tag:NAME=VALUE|end-user:PROJECT] [--period day|month|total] [--limit N]\n[--mode strict|observe] [TARGET] [--json]",
    "budget delete|pause|resume ID [TARGET] [--json]",
    "budget override ID --limit N --until ISO|+2h [--end-user U] [TARGET] [--json]",
    "budget override ID --end [--end-user U] [TARGET] [--json]",
    "budget check [TARGET] [--json]",
  ],
  summary:
    "status: every budget (config and run time) in its current period; reconcile: settle calls a crash left interrupted;\n" +
    "        check: every budget row against the journal (reserved = calls in flight, spent = their cost; exit 1 on drift);\n" +
    "        report: journal spend (provider-reported vs estimated) by key, project, model or budget;\n" +
    "        list, set, delete, pause, resume: budgets of the config and the store; `renio budgets` is the same command;\n" +
    "        reconcile works on the store, not through a relay",
  targeted: true,
};
const KEYS: CommandHelp = {
  synopsis: [
    "keys create [--id ID] [--project P] [--model M]… [--region R]… [--expires ISO|30d] [--metadata JSON] [--idempotency-key K] [TARGET] [--json]",
    "keys update ID [--project P] [--model M]… [--region R]… [--expires ISO|30d|never] [--metadata JSON] [TARGET] [--json]",
    "keys list [--project P] [--status active|expired|revoked] [--source store|config] [TARGET] [--json]",
    "keys show ID [TARGET] [--json]",
    "keys revoke ID [TARGET] [--json]",
    "keys rotate ID [--grace SECONDS|1h] [--idempotency-key K] [TARGET] [--json]",
  ],
  summary: "manage stored keys (the secret is shown once)",
  targeted: true,
};
const AUDIT: CommandHelp = {
  synopsis: ["audit list [--since ISO|2h|7d] [--until …] [--actor A] [--action X] [--target T] [--limit N] [TARGET] [--json]"],
  summary: "admin actions, newest first: who, what, on what (before/after with --json; never a secret)",
  targeted: true,
};
const ALERTS: CommandHelp = {
  synopsis: ["alerts list [TARGET] [--status pending|delivered|failed] [--limit N] [--json]"],
  summary: "the alert outbox: each event with its status, attempts and last error",
  targeted: true,
};
const PRICES: CommandHelp = {
  synopsis: ["prices list"],
  summary: "print the built-in price table (per million tokens) with the date of its list prices",
};

/** `line` after `prefix`, its continuation lines indented under the first option. */
function indented(prefix: string, line: string): string {
  const pad = " ".repeat(prefix.length + line.indexOf(" ") + 1);
  return prefix + line.replaceAll("\n", `\n${pad}`);
}

function usage(help: CommandHelp): string {
  const lines = help.synopsis.map((line, i) => indented(i === 0 ? "usage: renio " : "       renio ", line));
  return `${lines.join("\n")}\n\n${help.summary}${help.targeted ? `\n\n${TARGET_HELP}` : ""}`;
}

/** `renio serve --help`. */
export const SERVE_USAGE = usage(SERVE);
/** `renio mock --help`. */
export const MOCK_USAGE = usage(MOCK);
/** `renio passthrough --help`. */
export const PASSTHROUGH_USAGE = usage(PASSTHROUGH);
/** `renio config --help`. */
export const CONFIG_USAGE = usage(CONFIG);
/** `renio journal --help`. */
export const JOURNAL_USAGE = usage(JOURNAL);
/** `renio budget --help`. */
export const BUDGET_USAGE = usage(BUDGET);
/** `renio keys --help`. */
export const KEYS_USAGE = usage(KEYS);
/** `renio audit --help`. */
export const AUDIT_USAGE = usage(AUDIT);
/** `renio alerts --help`. */
export const ALERTS_USAGE = usage(ALERTS);
/** `renio prices --help`. */
export const PRICES_USAGE = usage(PRICES);

/** True when the arguments ask for help (`help`, `--help`, `-h`). */
export function wantsHelp(args: readonly string[]): boolean {
  return args[0] === "help" || args.includes("--help") || args.includes("-h");
}

function entry(help: CommandHelp): string {
  return `${help.synopsis.map((line) => indented("  ", line)).join("\n")}\n        ${help.summary}`;
}

/** `renio --help`. */
export const HELP = `renio — a fast, fail-closed LLM relay with a write-ahead journal and hard budgets

usage: renio <command> [options]        (renio <command> --help: that command's usage)

commands:
${[SERVE, MOCK, BENCH, PASSTHROUGH, CONFIG, JOURNAL, BUDGET, ALERTS, KEYS, AUDIT, PRICES].map(entry).join("\n")}
${TARGET_HELP.replace("TARGET:", "  TARGET:")}
  help [COMMAND], --help
        this text, or that command's usage
  version, --version
        print the version

docs: README.md`;
