import { createAdminAccount } from '../../src/accounts/account.service';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';

const PASSWORD = 'correct horse battery staple';

describe.each(backends)('admin accounts on %s', (backend) => {
  let db: TestDatabase;
  let api: TestServer;
  const mails: Array<{ email: string; token: string }> = [];

  const start = async (registration: 'closed' | 'approval' | 'open') => {
    await api?.close();
    api = await startTestServer(db, {
      // Long enough that the revocation test passes only if revoking clears the token cache.
      tokenCacheTtlMs: 60_000,
      accounts: { registration, mailer: { sendPasswordReset: async (email, token) => void mails.push({ email, token }) } },
    });
  };
  const loginAs = (email: string, password: string) =>
    api.request('POST', '/api/v1/auth/login', { token: null, body: { email, password } });

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    await createAdminAccount(db.prisma, { email: 'Ops@Example.com', password: PASSWORD });
  });
  afterAll(async () => {
    await api?.close();
    await db?.close();
  });
  beforeEach(() => start('closed'));

  it('signs in an admin with a short-lived token of role admin; a failure does not say why', async () => {
    const res = await loginAs('ops@example.com', PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^sgs_/),
      expiresAt: expect.any(String),
      email: 'ops@example.com',
      role: 'admin',
    });
    const admin = await api.request('POST', '/graphql', {
      token: res.body.token,
      body: { query: '{ webhookConfigs { id } adminAccounts { email status } }' },
    });
    expect(admin.body.data.adminAccounts).toEqual([expect.objectContaining({ email: 'ops@example.com', status: 'active' })]);
    expect(admin.body.errors).toBeUndefined();

    const wrongPassword = await loginAs('ops@example.com', 'not the password');
    const unknown = await loginAs('nobody@example.com', PASSWORD);
    expect(wrongPassword.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe(wrongPassword.body.error.message);

    // An integration token is not an admin.
    const denied = await api.graphql('{ adminAccounts { email } }');
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lets an admin session create, list and revoke API tokens', async () => {
    const session = (await loginAs('ops@example.com', PASSWORD)).body.token;
    const asAdmin = (query: string) => api.request('POST', '/graphql', { token: session, body: { query } });
    const created = await asAdmin(`mutation { createApiToken(name: "shop-${backend}") { token apiToken { id name role } } }`);
    const { token, apiToken } = created.body.data.createApiToken;
    expect(token).toMatch(/^sgw_/);
    expect(apiToken).toMatchObject({ name: `shop-${backend}`, role: 'integration' });
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(200);
    const list = await asAdmin('{ apiTokens { name revokedAt } }');
    expect(list.text).not.toContain(token);
    await asAdmin(`mutation { revokeApiToken(idOrName: "${apiToken.id}") { revokedAt } }`);
    expect((await api.request('GET', '/api/v1/updated-products', { token })).status).toBe(401);
    // An integration token cannot mint tokens.
    expect((await api.graphql('mutation { createApiToken(name: "nope") { token } }')).body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('signs in over GraphQL without a token, and nothing else runs without one', async () => {
    const login = await api.request('POST', '/graphql', {
      token: null,
      body: {
        query: 'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token role } }',
        variables: { e: 'ops@example.com', p: PASSWORD },
      },
    });
    expect(login.body.data.login).toEqual({ token: expect.stringMatching(/^sgs_/), role: 'admin' });
    const sneaky = await api.request('POST', '/graphql', {
      token: null,
      body: { query: `mutation { login(email: "x@example.com", password: "y") { token } acknowledgeProducts(ids: [1]) { acknowledged } }` },
    });
    expect(sneaky.status).toBe(401);
    const query = await api.request('POST', '/graphql', { token: null, body: { query: '{ pendingChanges { products } }' } });
    expect(query.status).toBe(401);
  });

  it('keeps registration closed by default, and with approval waits for an admin', async () => {
    const closed = await api.request('POST', '/api/v1/auth/register', {
      token: null,
      body: { email: 'a@example.com', password: PASSWORD },
    });
    expect(closed.status).toBe(403);

    await start('approval');
    const pending = await api.request('POST', '/api/v1/auth/register', {
      token: null,
      body: { email: `b-${backend}@example.com`, password: PASSWORD },
    });
    expect(pending.body).toEqual({ email: `b-${backend}@example.com`, status: 'pending' });
    expect((await loginAs(`b-${backend}@example.com`, PASSWORD)).status).toBe(401);
    const short = await api.request('POST', '/api/v1/auth/register', { token: null, body: { email: 'c@example.com', password: 'short' } });
    expect(short.body.error.details).toEqual([expect.objectContaining({ field: 'password' })]);

    const session = (await loginAs('ops@example.com', PASSWORD)).body.token;
    const account = await db.prisma.adminAccount.findUniqueOrThrow({ where: { email: `b-${backend}@example.com` } });
    const approved = await api.request('POST', '/graphql', {
      token: session,
      body: { query: `mutation { approveAccount(id: ${account.id}) { status approvedBy } }` },
    });
    expect(approved.body.data.approveAccount).toEqual({ status: 'active', approvedBy: 'ops@example.com' });
    expect((await loginAs(`b-${backend}@example.com`, PASSWORD)).status).toBe(200);

    await start('open');
    const open = await api.request('POST', '/api/v1/auth/register', {
      token: null,
      body: { email: `d-${backend}@example.com`, password: PASSWORD },
    });
    expect(open.body.status).toBe('active');
    expect(
      (await api.request('POST', '/api/v1/auth/register', { token: null, body: { email: `d-${backend}@example.com`, password: PASSWORD } }))
        .status,
    ).toBe(409);
  });

  it('resets a password with a single-use, expiring token and ends the old sessions', async () => {
    await createAdminAccount(db.prisma, { email: `reset-${backend}@example.com`, password: PASSWORD });
    const email = `reset-${backend}@example.com`;
    const oldSession = (await loginAs(email, PASSWORD)).body.token;
    mails.length = 0;
    expect((await api.request('POST', '/api/v1/auth/password-reset', { token: null, body: { email } })).body).toEqual({ accepted: true });
    expect((await api.request('POST', '/api/v1/auth/password-reset', { token: null, body: { email: 'ghost@example.com' } })).body).toEqual({
      accepted: true,
    });
    expect(mails).toEqual([{ email, token: expect.any(String) }]);
    const stored = await db.prisma.passwordReset.findMany({ where: { account: { email } } });
    expect(JSON.stringify(stored)).not.toContain(mails[0]!.token);

    const confirm = (token: string) =>
      api.request('POST', '/api/v1/auth/password-reset/confirm', { token: null, body: { token, password: 'a brand new passphrase' } });
    expect((await confirm(mails[0]!.token)).body).toEqual({ success: true });
    expect((await confirm(mails[0]!.token)).status).toBe(400);
    expect((await loginAs(email, PASSWORD)).status).toBe(401);
    expect((await loginAs(email, 'a brand new passphrase')).status).toBe(200);
    expect((await api.request('POST', '/graphql', { token: oldSession, body: { query: '{ adminAccounts { id } }' } })).status).toBe(401);

    await api.request('POST', '/api/v1/auth/password-reset', { token: null, body: { email } });
    await db.prisma.passwordReset.updateMany({ where: { usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await confirm(mails[mails.length - 1]!.token)).status).toBe(400);
  });

  it('limits logins to 5 per minute per IP, with Retry-After', async () => {
    for (let i = 0; i < 5; i++) expect((await loginAs('ops@example.com', 'wrong')).status).toBe(401);
    const limited = await loginAs('ops@example.com', PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('signs a session out for good; an API token cannot sign out', async () => {
    const session = (await loginAs('ops@example.com', PASSWORD)).body.token;
    const asSession = (query: string) => api.request('POST', '/graphql', { token: session, body: { query } });
    expect((await asSession('mutation { logout { success } }')).body.data).toEqual({ logout: { success: true } });
    expect((await asSession('{ apiTokens { id } }')).status).toBe(401);

    const denied = await api.graphql('mutation { logout { success } }');
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
