import { PrismaPg } from '@prisma/adapter-pg';
import { GraphQLError } from 'graphql';
import { Pool } from 'pg';
import { databaseOutage, describeDatabaseError } from '../../src/errors/database-errors';
import { freePort } from '../support/redis-server';
import { PrismaClient } from '../../src/generated/prisma/client';

/** Real errors where they are cheap to get (a refused port), the driver's shapes otherwise. */
describe('database outage classification', () => {
  let url: string;
  beforeAll(async () => {
    url = `postgresql://nobody@127.0.0.1:${await freePort()}/none`; // nothing listens there
  });

  it('recognises a refused connection through Prisma (model query and raw query) and through pg', async () => {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
    const viaModel = await prisma.apiToken.findUnique({ where: { tokenHash: 'x' } }).catch((e: unknown) => e);
    const viaRaw = await prisma.$queryRawUnsafe('SELECT 1').catch((e: unknown) => e);
    const pool = new Pool({ connectionString: url });
    const viaPg = await pool.query('SELECT 1').catch((e: unknown) => e);
    await pool.end();
    expect(databaseOutage(viaModel)).toEqual({ code: 'P1001', reason: "can't reach the database server" });
    expect(databaseOutage(viaRaw)).toMatchObject({ reason: "can't reach the database server" });
    expect(databaseOutage(viaPg)).toEqual({ code: 'ECONNREFUSED', reason: 'connection failure (ECONNREFUSED)' });
    // Wrapped by GraphQL execution, still recognised; the description names no host or port.
    expect(databaseOutage(new GraphQLError('x', { originalError: viaModel as Error }))?.code).toBe('P1001');
    const description = describeDatabaseError(viaModel);
    expect(description).not.toContain('127.0.0.1');
    expect(description).not.toContain(new URL(url).port);
  });

  it.each([
    ['terminated backend', { code: '57P01', severity: 'FATAL', message: 'terminating connection due to administrator command' }, '57P01'],
    ['starting up', { code: '57P03', severity: 'FATAL', message: 'the database system is starting up' }, '57P03'],
    ['too many clients', { code: '53300', severity: 'FATAL', message: 'sorry, too many clients already' }, '53300'],
    ['not accepting', { code: '55000', severity: 'FATAL', message: 'database "x" is not currently accepting connections' }, '55000'],
    [
      'statement timeout via the adapter',
      {
        code: 'P2010',
        meta: {
          driverAdapterError: {
            cause: { kind: 'postgres', code: '57014', originalCode: '57014', message: 'canceling statement due to statement timeout' },
          },
        },
      },
      '57014',
    ],
    [
      'too many connections via the adapter',
      { code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'TooManyConnections', cause: 'x' } } } },
      'TooManyConnections',
    ],
    ['pool wait', new Error('timeout exceeded when trying to connect'), 'POOL_TIMEOUT'],
    ['connection terminated', new Error('Connection terminated unexpectedly'), 'CONNECTION_TERMINATED'],
    ['Prisma pool timeout', { code: 'P2024', message: 'Timed out fetching a new connection from the connection pool.' }, 'P2024'],
  ])('recognises %s', (_name, error, code) => {
    expect(databaseOutage(error)?.code).toBe(code);
  });

  it.each([
    ['a unique violation', { code: 'P2002', meta: { driverAdapterError: { cause: { kind: 'UniqueConstraintViolation' } } } }],
    ['another 55000', { code: '55000', severity: 'ERROR', message: 'cannot ALTER TABLE because it is being used' }],
    ['a syntax error', { code: '42601', severity: 'ERROR', message: 'syntax error at or near "x"' }],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['nothing', undefined],
  ])('does not take %s for an outage', (_name, error) => {
    expect(databaseOutage(error)).toBeUndefined();
  });
});
