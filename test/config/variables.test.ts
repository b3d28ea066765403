import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, configVariables, loadConfig } from '../../src/config';

/** Issue #34: each variable is written once, on the leaf that reads it; the rest is found by walking the schema. */
describe('configuration variables', () => {
  it('reads nested values from their variables, converted on the leaf', () => {
    const config = loadConfig({
      RETENTION_HISTORY_DAYS: '7',
      WORKER_DATABASE_POOL_SIZE: '2',
      EXPENSIVE_OPERATION_REST_PERCENT: '250',
      SESSION_TTL_MINUTES: '3',
      WEBHOOK_DISABLE_AFTER_HOURS: '1.5',
      TRUST_PROXY: 'true',
      WORKER_ENABLED: 'false',
      CORS_ORIGINS: ' https://a.example, ,https://b.example',
    });
    expect(config.retention).toEqual({ completedDays: 30, resolvedDays: 90, historyDays: 7 });
    expect(config.databasePool.workerSize).toBe(2);
    expect(config.requestBounds.expensiveRestRatio).toBe(2.5);
    expect(config.sessionTtlMs).toBe(180_000);
    expect(config.webhookDisableAfterMs).toBe(5_400_000);
    expect(config).toMatchObject({ trustProxy: true, workerEnabled: false, embeddedFsync: true });
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('keeps unset optional variables as undefined keys, as the code has always read them', () => {
    const config = loadConfig({ METRICS_PORT: '' });
    for (const key of ['databaseUrl', 'redisUrl', 'encryptionKey', 'smtpUrl', 'metricsPort'] as const) {
      expect(config).toHaveProperty(key, undefined);
    }
  });

  it('names the variable in an error, not the path in the configuration', () => {
    let error: unknown;
    try {
      loadConfig({ RETENTION_HISTORY_DAYS: '-1', GRAPHQL_MAX_DEPTH: '0', TRUST_PROXY: 'yes' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.map((issue) => issue.split(':')[0]).sort()).toEqual(['GRAPHQL_MAX_DEPTH', 'RETENTION_HISTORY_DAYS', 'TRUST_PROXY']);
    expect(issues.join('\n')).not.toMatch(/retention|historyDays|graphqlLimits/);
  });

  it('lists every variable once', () => {
    const variables = configVariables();
    expect(new Set(variables).size).toBe(variables.length);
    expect(variables).toEqual(
      expect.arrayContaining(['HOST', 'DATABASE_POOL_SIZE', 'RATE_LIMIT_READ_PER_MINUTE', 'WEBHOOK_BLOCKED_NETWORKS']),
    );
    for (const variable of variables) expect(variable).toMatch(/^[A-Z][A-Z0-9_]*$/);
  });

  it('writes each variable exactly once in the code of src/config/index.ts (comments may mention it)', () => {
    const source = readFileSync(path.join(__dirname, '../../src/config/index.ts'), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const timesWritten = Object.fromEntries(
      configVariables().map((variable) => [variable, code.match(new RegExp(`\\b${variable}\\b`, 'g'))?.length ?? 0]),
    );
    expect(timesWritten).toEqual(Object.fromEntries(configVariables().map((variable) => [variable, 1])));
  });
});
