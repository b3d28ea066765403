import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';

/** A stand-in for dist/console: what the plugin serves does not depend on what Vite built. */
function fakeBuild(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>console</title><script type="module" src="/admin/assets/main-abc123.js"></script>',
  );
  writeFileSync(path.join(dir, 'assets', 'main-abc123.js'), 'console.log("hi")');
  writeFileSync(path.join(dir, 'assets', 'main-abc123.css'), 'body{}');
  return dir;
}

describe('the admin console under /admin', () => {
  let db: TestDatabase;
  let api: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    db = await openTestDatabase('embedded');
    api = await startTestServer(db, { consoleDir: dir });
  });
  afterAll(async () => {
    await api?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page without a token, same-origin only and always revalidated', async () => {
    const res = await api.request('GET', '/admin/', { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>console</title>');
    // The sign-in page offers registration only when REGISTRATION allows it (closed in tests).
    expect(res.text).toContain('<meta name="sync-gateway-registration" content="closed" />');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
  });

  it('answers the app routes (any extension-less path) with the page, for reloads and links', async () => {
    for (const route of ['/admin', '/admin/failures', '/admin/failures/12', '/admin/queue?status=failed']) {
      const res = await api.request('GET', route, { token: null });
      expect({ route, status: res.status, page: res.text.includes('<title>console</title>') }).toEqual({ route, status: 200, page: true });
    }
  });

  it('serves hashed assets with their type, cached for good', async () => {
    const js = await api.request('GET', '/admin/assets/main-abc123.js', { token: null });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.text).toBe('console.log("hi")');
    const css = await api.request('GET', '/admin/assets/main-abc123.css', { token: null });
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers a missing file with 404, a write with 405, and HEAD without a body', async () => {
    const missing = await api.request('GET', '/admin/assets/nope.js', { token: null });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect((await api.request('POST', '/admin/', { token: null, body: {} })).status).toBe(405);
    const head = await api.request('HEAD', '/admin/', { token: null });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('does not open anything outside /admin: /administrator and /graphql still need a token', async () => {
    expect((await api.request('GET', '/administrator', { token: null })).status).toBe(401);
    expect((await api.request('POST', '/graphql', { token: null, body: { query: '{ apiTokens { id } }' } })).status).toBe(401);
  });

  it('counts its requests under one metrics label, whatever the file or route', async () => {
    const text = (await api.request('GET', '/metrics')).text;
    expect(text).toMatch(/sync_gateway_http_requests_total\{route="\/admin\/\*",method="GET",status="200"\} \d+/);
    expect(text).not.toMatch(/route="\/admin\/assets/);
  });

  it('says how to build the console when it is not built, instead of a blank page', async () => {
    const unbuilt = await startTestServer(db, { consoleDir: path.join(dir, 'does-not-exist') });
    try {
      const res = await unbuilt.request('GET', '/admin/', { token: null });
      expect(res.status).toBe(503);
      expect(res.body.error.message).toMatch(/npm run build:console/);
    } finally {
      await unbuilt.close();
    }
  });
});
