import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';

describe('loadConfig', () => {
  it('has defaults that let npm start run on a bare machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 4000, databaseUrl: undefined, logLevel: 'info' });
    expect(config.dataDir).toBe(path.resolve('data'));
  });

  it('reads PORT, HOST, DATA_DIR and DATABASE_URL', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/sgw',
      DATABASE_URL: 'postgresql://u@db:5432/sgw',
    });
    expect(config).toMatchObject({ port: 8080, host: '0.0.0.0', dataDir: '/var/lib/sgw', databaseUrl: 'postgresql://u@db:5432/sgw' });
  });

  it('states the connection budget and the lease, with defaults per ADR 0016', () => {
    expect(loadConfig({})).toMatchObject({
      workerLeaseMs: 10_000,
      databasePool: { size: 10, workerSize: 4, timeoutMs: 5_000, statementTimeoutMs: 60_000, connectTimeoutMs: 300_000 },
    });
    expect(
      loadConfig({ DATABASE_POOL_SIZE: '4', WORKER_DATABASE_POOL_SIZE: '2', DATABASE_POOL_TIMEOUT_MS: '2000' }).databasePool,
    ).toMatchObject({ size: 4, workerSize: 2, timeoutMs: 2_000 });
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' })).toMatchObject({ databaseUrl: undefined, port: 4000 });
  });

  it('reports every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues.join('\n');
    expect(issues).toMatch(/PORT/);
    expect(issues).toMatch(/DATABASE_URL/);
    expect(issues).toMatch(/LOG_LEVEL/);
  });

  it('reads the SSRF guard lists as CIDRs and names the entries that are not', () => {
    expect(loadConfig({}).webhookNetworks).toEqual({ allowed: [], blocked: [] });
    expect(
      loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32, fd00::/8', WEBHOOK_BLOCKED_NETWORKS: '10.0.0.0/8,192.168.1.7' })
        .webhookNetworks,
    ).toEqual({
      allowed: ['127.0.0.1/32', 'fd00::/8'],
      blocked: ['10.0.0.0/8', '192.168.1.7'],
    });
    expect(() => loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/33,localhost' })).toThrow(
      /WEBHOOK_ALLOWED_NETWORKS: .*127\.0\.0\.1\/33, localhost/,
    );
    expect(() => loadConfig({ WEBHOOK_BLOCKED_NETWORKS: '10.0.0.0/x' })).toThrow(/WEBHOOK_BLOCKED_NETWORKS/);
  });
});
