import path from 'node:path';
import { z } from 'zod';
import { parseNetworkList, type NetworkLists } from './cidr';

/**
 * The one place that reads the environment (at start): each variable is named once, in the zod
 * schema below with its rule, default and why; `toAppConfig` shapes the parsed variables into the
 * configuration the code uses, and AppConfig is that shape's type (not written by hand).
 */

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** closed: admins are created with the CLI; approval: registrations wait for an admin; open. */
export const REGISTRATION_MODES = ['closed', 'approval', 'open'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional(),
  /** 32 bytes (64 hex characters or base64) that encrypt webhook secrets; required with DATABASE_URL. */
  ENCRYPTION_KEY: z.string().optional(),
  /** Shared fan-out of live events between replicas. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// connection string')
    .optional(),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  /** json, pretty (for people), or auto: pretty when the output is a terminal. */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** SPEC 8 limits, per token (per client IP without one), per minute. */
  RATE_LIMIT_READ_PER_MINUTE: z.coerce.number().int().positive().default(3000),
  RATE_LIMIT_WRITE_PER_MINUTE: z.coerce.number().int().positive().default(1500),
  /** GraphQL limits (GraphQL Armor). */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(12),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(15),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(5000),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().positive().default(5000),
  /** Bounds on what one GraphQL or REST request may cost (ADR 0043). Nodes: list items an operation may return. */
  MAX_QUERY_NODES: z.coerce.number().int().positive().default(50_000),
  /**
   * Queries that may return this many nodes or more are expensive: they run one at a time per
   * replica by default. 200: four default pages; a poll of up to 200 records never waits.
   */
  EXPENSIVE_QUERY_NODES: z.coerce.number().int().positive().default(200),
  MAX_EXPENSIVE_OPERATIONS_PER_TOKEN: z.coerce.number().int().positive().default(2),
  /** Measured (bench/bounded-load.ts): with 2 at once and no rest a 50-record poll's p99 was 5 s on PostgreSQL. */
  MAX_EXPENSIVE_OPERATIONS: z.coerce.number().int().positive().default(1),
  /** After an expensive query, its replica slot rests this percentage of the time the query took (100: as long again). */
  EXPENSIVE_OPERATION_REST_PERCENT: z.coerce.number().int().min(0).max(1_000).default(100),
  /** How long an expensive query waits for its turn on a busy replica before a 503. */
  EXPENSIVE_OPERATION_WAIT_MS: z.coerce.number().int().min(0).default(5_000),
  /** The largest answer of a query; a larger one fails alone with RESPONSE_TOO_LARGE (422). */
  MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(8 * 1024 * 1024),
  /** Admin self-registration: closed (default), approval (pending until an admin approves) or open. */
  REGISTRATION: z.enum(REGISTRATION_MODES).default('closed'),
  /** Mail for password resets; without it the reset token is written to the log. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().default('sync-gateway <no-reply@localhost>'),
  SESSION_TTL_MINUTES: z.coerce.number().int().positive().default(480),
  /** Also serve /metrics without a token on this port (bind HOST to a private interface). */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Comma-separated origins allowed by CORS; CORS is off when empty. */
  CORS_ORIGINS: z.string().default(''),
  /** Behind a reverse proxy: take the client IP from X-Forwarded-For. */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /** Whether `serve` also runs the webhook delivery worker (replicas may leave it to `sync-gateway worker`). */
  WORKER_ENABLED: z.enum(['true', 'false']).default('true'),
  /** A delivery claimed by a worker that died is claimed again after this; a live worker renews its leases every third of it. */
  WORKER_LEASE_MS: z.coerce.number().int().min(1_000).default(10_000),
  /** PostgreSQL connections of the request path per replica (docs/adr/0016 has the whole budget). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).default(10),
  /** PostgreSQL connections of the webhook worker per replica (plus one for LISTEN). */
  WORKER_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1_000).default(4),
  /** Longest wait for a pooled connection (or to open one); past it the request answers 503. */
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** PostgreSQL statement_timeout of every pooled connection; 0 turns it off. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(60_000),
  /** How long start-up keeps retrying a database that refuses connections before giving up. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).default(300_000),
  /**
   * Embedded store: a write is acknowledged only once its WAL is on stable storage (PostgreSQL's
   * synchronous_commit). `false` trades that for speed: an OS crash or power cut may then lose the
   * last acknowledged writes (never corrupt the store: PostgreSQL still fsyncs its WAL).
   */
  EMBEDDED_FSYNC: z.enum(['true', 'false']).default('true'),
  /** Largest accepted request body; the batch limits (5,000 products…) sit well below it. */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Writing lastUsedAt on every request would turn each poll into a write. */
  TOKEN_LAST_USED_RESOLUTION_MS: z.coerce.number().int().min(0).default(60_000),
  /** How long a verified API token is trusted without a lookup; a revocation elsewhere waits this long. 0 turns it off. */
  TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10_000),
  /** Completed deliveries (and their attempt log) are deleted this many days after completion; 0 keeps them. */
  RETENTION_COMPLETED_DAYS: z.coerce.number().int().min(0).max(36_500).default(30),
  /** Resolved failures are deleted this many days after resolution; 0 keeps them. Open failures are never deleted. */
  RETENTION_RESOLVED_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  /** Change-history entries are deleted this many days after the change; 0 keeps them (ADR 0031). */
  RETENTION_HISTORY_DAYS: z.coerce.number().int().min(0).max(36_500).default(90),
  /**
   * How long a CLI command waits for an embedded server that holds DATA_DIR to open its control
   * socket (it opens it once it listens), and for another CLI command on DATA_DIR to finish.
   */
  CLI_WAIT_FOR_SERVER_MS: z.coerce.number().int().min(0).default(60_000),
  /** Comma-separated CIDRs webhooks may reach although built-in rules refuse them (e.g. 127.0.0.1/32 for a local receiver). */
  WEBHOOK_ALLOWED_NETWORKS: networkList(),
  /** Comma-separated CIDRs webhooks may never reach (on top of loopback, link-local, multicast…); wins over the allowed list. */
  WEBHOOK_BLOCKED_NETWORKS: networkList(),
  /** A configuration whose deliveries have failed without a success for this long is disabled (ADR 0022); 0 never disables. */
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().min(0).max(8_760).default(120),
});

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

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once, at start; every bad variable is reported, not just the first. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const blankAsUnset = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(blankAsUnset);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return toAppConfig(parsed.data);
}

export type AppConfig = ReturnType<typeof toAppConfig>;
/** ADR 0043: node bound, expensive operations in flight, answer size. */
export type RequestBounds = AppConfig['requestBounds'];

/** The parsed variables in the shape the code reads: grouped, in the units it computes with. */
function toAppConfig(e: z.output<typeof envSchema>) {
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    encryptionKey: e.ENCRYPTION_KEY,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    workerEnabled: e.WORKER_ENABLED === 'true',
    workerLeaseMs: e.WORKER_LEASE_MS,
    databasePool: {
      size: e.DATABASE_POOL_SIZE,
      workerSize: e.WORKER_DATABASE_POOL_SIZE,
      timeoutMs: e.DATABASE_POOL_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    },
    embeddedFsync: e.EMBEDDED_FSYNC === 'true',
    rateLimit: { readPerMinute: e.RATE_LIMIT_READ_PER_MINUTE, writePerMinute: e.RATE_LIMIT_WRITE_PER_MINUTE },
    trustProxy: e.TRUST_PROXY === 'true',
    graphqlLimits: {
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxCost: e.GRAPHQL_MAX_COST,
      maxTokens: e.GRAPHQL_MAX_TOKENS,
    },
    requestBounds: {
      maxQueryNodes: e.MAX_QUERY_NODES,
      expensiveQueryNodes: e.EXPENSIVE_QUERY_NODES,
      maxExpensivePerToken: e.MAX_EXPENSIVE_OPERATIONS_PER_TOKEN,
      maxExpensiveOperations: e.MAX_EXPENSIVE_OPERATIONS,
      expensiveWaitMs: e.EXPENSIVE_OPERATION_WAIT_MS,
      expensiveRestRatio: e.EXPENSIVE_OPERATION_REST_PERCENT / 100,
      maxResponseBytes: e.MAX_RESPONSE_BYTES,
    },
    registration: e.REGISTRATION,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    sessionTtlMs: e.SESSION_TTL_MINUTES * 60_000,
    metricsPort: e.METRICS_PORT,
    corsOrigins: e.CORS_ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    maxBodyBytes: e.MAX_BODY_BYTES,
    tokenLastUsedResolutionMs: e.TOKEN_LAST_USED_RESOLUTION_MS,
    tokenCacheTtlMs: e.TOKEN_CACHE_TTL_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    cliWaitForServerMs: e.CLI_WAIT_FOR_SERVER_MS,
    /** The SSRF guard's additions to its built-in rules (ADR 0018). */
    webhookNetworks: { allowed: e.WEBHOOK_ALLOWED_NETWORKS, blocked: e.WEBHOOK_BLOCKED_NETWORKS } satisfies NetworkLists,
    /** Failing this long disables a webhook configuration; 0: never (ADR 0022). */
    webhookDisableAfterMs: e.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
    /** What the delivery worker prunes, in days; 0 keeps forever (ADRs 0021, 0031). */
    retention: {
      completedDays: e.RETENTION_COMPLETED_DAYS,
      resolvedDays: e.RETENTION_RESOLVED_DAYS,
      historyDays: e.RETENTION_HISTORY_DAYS,
    },
  };
}
