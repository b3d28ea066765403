import path from 'node:path';
import { z } from 'zod';
import { parseNetworkList, type NetworkLists } from './cidr';

/**
 * The one place that reads the environment (at start). `configSchema` is the configuration the
 * code reads, grouped and in the units it computes with; each leaf names the one variable it reads
 * (`fromEnv`), with its rule, default, conversion and why. AppConfig is the schema's output type,
 * and `loadConfig` finds the variables by walking the schema, so no name is written twice.
 */

/** Which environment variable each leaf of configSchema reads (zod's registries key metadata by schema). */
const variableOf = z.registry<{ variable: string }>();

/** A leaf of the configuration: `schema` checks (and converts) the text of `variable`; blank is unset. */
function fromEnv<T extends z.ZodType>(variable: string, schema: T): T {
  variableOf.add(schema, { variable });
  return schema;
}

const int = () => z.coerce.number().int();

/** 'true' or 'false': a typo such as `yes` is an error rather than silently false. */
function flag(defaultValue: 'true' | 'false') {
  return z
    .enum(['true', 'false'])
    .default(defaultValue)
    .transform((text) => text === 'true');
}

/** A comma-separated CIDR list; the error names the entries that are not networks. */
function networkList() {
  return z
    .string()
    .default('')
    .superRefine((text, ctx) => {
      const { invalid } = parseNetworkList(text);
      if (invalid.length > 0)
        ctx.addIssue({ code: 'custom', message: `not networks in CIDR notation (like 10.0.0.0/8 or fd00::/8): ${invalid.join(', ')}` });
    })
    .transform((text) => parseNetworkList(text).networks);
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** closed: admins are created with the CLI; approval: registrations wait for an admin; open. */
export const REGISTRATION_MODES = ['closed', 'approval', 'open'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

const configSchema = z.object({
  host: fromEnv('HOST', z.string().min(1).default('127.0.0.1')),
  port: fromEnv('PORT', int().min(0).max(65535).default(4000)),
  dataDir: fromEnv(
    'DATA_DIR',
    z
      .string()
      .min(1)
      .default('./data')
      .transform((dir) => path.resolve(dir)),
  ),
  databaseUrl: fromEnv(
    'DATABASE_URL',
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
      .optional(),
  ),
  /** Shared fan-out of live events between replicas. */
  redisUrl: fromEnv(
    'REDIS_URL',
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// connection string')
      .optional(),
  ),
  /** 32 bytes (64 hex characters or base64) that encrypt webhook secrets; required with DATABASE_URL. */
  encryptionKey: fromEnv('ENCRYPTION_KEY', z.string().optional()),
  logLevel: fromEnv('LOG_LEVEL', z.enum(logLevels).default('info')),
  /** json, pretty (for people), or auto: pretty when the output is a terminal. */
  logFormat: fromEnv('LOG_FORMAT', z.enum(['auto', 'json', 'pretty']).default('auto')),
  /** Whether `serve` also runs the webhook delivery worker (replicas may leave it to `sync-gateway worker`). */
  workerEnabled: fromEnv('WORKER_ENABLED', flag('true')),
  /** A delivery claimed by a worker that died is claimed again after this; a live worker renews its leases every third of it. */
  workerLeaseMs: fromEnv('WORKER_LEASE_MS', int().min(1_000).default(10_000)),
  databasePool: z.object({
    /** PostgreSQL connections of the request path per replica (docs/adr/0016 has the whole budget). */
    size: fromEnv('DATABASE_POOL_SIZE', int().min(1).max(1_000).default(10)),
    /** PostgreSQL connections of the webhook worker per replica (plus one for LISTEN). */
    workerSize: fromEnv('WORKER_DATABASE_POOL_SIZE', int().min(1).max(1_000).default(4)),
    /** Longest wait for a pooled connection (or to open one); past it the request answers 503. */
    timeoutMs: fromEnv('DATABASE_POOL_TIMEOUT_MS', int().min(100).default(5_000)),
    /** PostgreSQL statement_timeout of every pooled connection; 0 turns it off. */
    statementTimeoutMs: fromEnv('DATABASE_STATEMENT_TIMEOUT_MS', int().min(0).default(60_000)),
    /** How long start-up keeps retrying a database that refuses connections before giving up. */
    connectTimeoutMs: fromEnv('DATABASE_CONNECT_TIMEOUT_MS', int().min(0).default(300_000)),
  }),
  /**
   * Embedded store: a write is acknowledged only once its WAL is on stable storage (PostgreSQL's
   * synchronous_commit). `false` trades that for speed: an OS crash or power cut may then lose the
   * last acknowledged writes (never corrupt the store: PostgreSQL still fsyncs its WAL).
   */
  embeddedFsync: fromEnv('EMBEDDED_FSYNC', flag('true')),
  /** SPEC 8 limits, per token (per client IP without one), per minute. */
  rateLimit: z.object({
    readPerMinute: fromEnv('RATE_LIMIT_READ_PER_MINUTE', int().positive().default(3000)),
    writePerMinute: fromEnv('RATE_LIMIT_WRITE_PER_MINUTE', int().positive().default(1500)),
  }),
  /** Behind a reverse proxy: take the client IP from X-Forwarded-For. */
  trustProxy: fromEnv('TRUST_PROXY', flag('false')),
  /** GraphQL limits (GraphQL Armor). */
  graphqlLimits: z.object({
    maxDepth: fromEnv('GRAPHQL_MAX_DEPTH', int().positive().default(12)),
    maxAliases: fromEnv('GRAPHQL_MAX_ALIASES', int().min(0).default(15)),
    maxCost: fromEnv('GRAPHQL_MAX_COST', int().positive().default(5000)),
    maxTokens: fromEnv('GRAPHQL_MAX_TOKENS', int().positive().default(5000)),
  }),
  /** Bounds on what one GraphQL or REST request may cost (ADR 0043). */
  requestBounds: z.object({
    /** Nodes: list items an operation may return. */
    maxQueryNodes: fromEnv('MAX_QUERY_NODES', int().positive().default(50_000)),
    /**
     * Queries that may return this many nodes or more are expensive: they run one at a time per
     * replica by default. 200: four default pages; a poll of up to 200 records never waits.
     */
    expensiveQueryNodes: fromEnv('EXPENSIVE_QUERY_NODES', int().positive().default(200)),
    maxExpensivePerToken: fromEnv('MAX_EXPENSIVE_OPERATIONS_PER_TOKEN', int().positive().default(2)),
    /** Measured (bench/bounded-load.ts): with 2 at once and no rest a 50-record poll's p99 was 5 s on PostgreSQL. */
    maxExpensiveOperations: fromEnv('MAX_EXPENSIVE_OPERATIONS', int().positive().default(1)),
    /** How long an expensive query waits for its turn on a busy replica before a 503. */
    expensiveWaitMs: fromEnv('EXPENSIVE_OPERATION_WAIT_MS', int().min(0).default(5_000)),
    /** After an expensive query, its replica slot rests this percentage of the time the query took (100: as long again). */
    expensiveRestRatio: fromEnv(
      'EXPENSIVE_OPERATION_REST_PERCENT',
      int()
        .min(0)
        .max(1_000)
        .default(100)
        .transform((percent) => percent / 100),
    ),
    /** The largest answer of a query; a larger one fails alone with RESPONSE_TOO_LARGE (422). */
    maxResponseBytes: fromEnv(
      'MAX_RESPONSE_BYTES',
      int()
        .min(1_024)
        .default(8 * 1024 * 1024),
    ),
  }),
  /** Admin self-registration: closed (default), approval (pending until an admin approves) or open. */
  registration: fromEnv('REGISTRATION', z.enum(REGISTRATION_MODES).default('closed')),
  /** Mail for password resets; without it the reset token is written to the log. */
  smtpUrl: fromEnv(
    'SMTP_URL',
    z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  mailFrom: fromEnv('MAIL_FROM', z.string().default('sync-gateway <no-reply@localhost>')),
  sessionTtlMs: fromEnv(
    'SESSION_TTL_MINUTES',
    int()
      .positive()
      .default(480)
      .transform((minutes) => minutes * 60_000),
  ),
  /** Also serve /metrics without a token on this port (bind HOST to a private interface). */
  metricsPort: fromEnv('METRICS_PORT', int().min(1).max(65535).optional()),
  /** Comma-separated origins allowed by CORS; CORS is off when empty. */
  corsOrigins: fromEnv(
    'CORS_ORIGINS',
    z
      .string()
      .default('')
      .transform((text) =>
        text
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      ),
  ),
  /** Largest accepted request body; the batch limits (5,000 products…) sit well below it. */
  maxBodyBytes: fromEnv(
    'MAX_BODY_BYTES',
    int()
      .positive()
      .default(10 * 1024 * 1024),
  ),
  /** Writing lastUsedAt on every request would turn each poll into a write. */
  tokenLastUsedResolutionMs: fromEnv('TOKEN_LAST_USED_RESOLUTION_MS', int().min(0).default(60_000)),
  /** How long a verified API token is trusted without a lookup; a revocation elsewhere waits this long. 0 turns it off. */
  tokenCacheTtlMs: fromEnv('TOKEN_CACHE_TTL_MS', int().min(0).max(300_000).default(5_000)),
  shutdownGraceMs: fromEnv('SHUTDOWN_GRACE_MS', int().positive().default(10_000)),
  /**
   * How long a CLI command waits for an embedded server that holds DATA_DIR to open its control
   * socket (it opens it once it listens), and for another CLI command on DATA_DIR to finish.
   */
  cliWaitForServerMs: fromEnv('CLI_WAIT_FOR_SERVER_MS', int().min(0).default(60_000)),
  /** The SSRF guard's additions to its built-in rules (ADR 0018). */
  webhookNetworks: z.object({
    /** Comma-separated CIDRs webhooks may reach although built-in rules refuse them (e.g. 127.0.0.1/32 for a local receiver). */
    allowed: fromEnv('WEBHOOK_ALLOWED_NETWORKS', networkList()),
    /** Comma-separated CIDRs webhooks may never reach (on top of loopback, link-local, multicast…); wins over the allowed list. */
    blocked: fromEnv('WEBHOOK_BLOCKED_NETWORKS', networkList()),
  }) satisfies z.ZodType<NetworkLists>,
  /** A configuration whose deliveries have failed without a success for this long is disabled (ADR 0022); 0 never disables. */
  webhookDisableAfterMs: fromEnv(
    'WEBHOOK_DISABLE_AFTER_HOURS',
    z.coerce
      .number()
      .min(0)
      .max(8_760)
      .default(120)
      .transform((hours) => hours * 3_600_000),
  ),
  /** What the delivery worker prunes, in days; 0 keeps forever (ADRs 0021, 0031). */
  retention: z.object({
    /** Completed deliveries (and their attempt log) are deleted this many days after completion; 0 keeps them. */
    completedDays: fromEnv('RETENTION_COMPLETED_DAYS', int().min(0).max(36_500).default(30)),
    /** Resolved failures are deleted this many days after resolution; 0 keeps them. Open failures are never deleted. */
    resolvedDays: fromEnv('RETENTION_RESOLVED_DAYS', int().min(0).max(36_500).default(90)),
    /** Change-history entries are deleted this many days after the change; 0 keeps them (ADR 0031). */
    historyDays: fromEnv('RETENTION_HISTORY_DAYS', int().min(0).max(36_500).default(90)),
  }),
});

export type AppConfig = z.output<typeof configSchema>;
/** ADR 0043: node bound, expensive operations in flight, answer size. */
export type RequestBounds = AppConfig['requestBounds'];

/** A variable and where its value sits in the configuration: `keys` are the groups, then the leaf. */
type ConfigLeaf = { variable: string; keys: readonly string[] };

/** Every leaf, in schema order; a field that is neither a leaf nor a group is a mistake caught at start. */
function leavesOf(schema: z.ZodObject, groups: readonly string[] = []): ConfigLeaf[] {
  return Object.entries(schema.shape).flatMap(([key, child]) => {
    const keys = [...groups, key];
    const variable = variableOf.get(child)?.variable;
    if (variable !== undefined) return [{ variable, keys }];
    if (child instanceof z.ZodObject) return leavesOf(child, keys);
    throw new Error(`config.${keys.join('.')} names no environment variable: wrap it in fromEnv`);
  });
}

const leaves = leavesOf(configSchema);

/** The variables the configuration reads, in schema order (for docs and their tests). */
export function configVariables(): string[] {
  return leaves.map((leaf) => leaf.variable);
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once, at start; every bad variable is reported (by its name), not just the first. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // Every leaf's key is present (undefined when unset): zod then keeps an unset optional one as a key holding undefined.
  const input: Record<string, unknown> = {};
  for (const { variable, keys } of leaves) {
    const value = env[variable];
    const group = keys.slice(0, -1).reduce((node, key) => (node[key] ??= {}) as Record<string, unknown>, input);
    group[keys[keys.length - 1] ?? ''] = value === '' ? undefined : value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${variableAt(issue.path)}: ${issue.message}`));
  }
  return parsed.data;
}

/** The variable whose leaf holds an issue: operators set variables, not the configuration's paths. */
function variableAt(issuePath: readonly PropertyKey[]): string {
  const leaf = leaves.find(({ keys }) => keys.every((key, i) => issuePath[i] === key));
  return leaf?.variable ?? issuePath.map(String).join('.');
}
