/**
 * GraphiQL's page and files over HTTP (issue 32, item 7): a small page whose Content-Security-Policy
 * names no other host, and files named by their content's hash, cacheable for a year and
 * compressed as the request accepts. (test/http/offline-pages.e2e.test.ts runs it in Chromium.)
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { preferredEncoding } from '../../src/http/graphiql';
import { useApiFixture } from '../support/http';

jest.setTimeout(60_000);

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** Bytes as sent (fetch would decode them). */
function raw(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GraphiQL page and files', () => {
  const fixture = useApiFixture('embedded');
  let page: Raw;
  let assets: string[];

  beforeAll(async () => {
    page = await raw(`${fixture.api.url}/graphql`, { accept: 'text/html' });
    assets = [...page.body.toString().matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]!);
  });

  it('is a small page with the example query, the token template and a policy naming no other host', () => {
    expect(page.status).toBe(200);
    expect(page.body.length).toBeLessThan(10_000);
    const html = page.body.toString();
    expect(html).toContain('query PendingChanges');
    expect(html).toContain('Bearer sgw_…');
    // No script runs inline: the options are JSON data.
    expect(html).not.toMatch(/<script>/);
    const csp = String(page.headers['content-security-policy']);
    const sources = csp.split(';').flatMap((directive) => directive.trim().split(/\s+/).slice(1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(["'self'", "'none'", "'unsafe-inline'", 'data:']).toContain(source);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('names each file by its content, serves it br, gzip or plain, and lets it be cached for good', async () => {
    expect(assets.map((a) => a.replace(/\.[0-9a-f]{16}\./, '.<hash>.')).sort()).toEqual([
      '/graphiql/boot.<hash>.js',
      '/graphiql/favicon.<hash>.ico',
      '/graphiql/graphiql.<hash>.css',
      '/graphiql/graphiql.<hash>.js',
    ]);
    let plainTotal = 0;
    let brTotal = 0;
    // The workers are named in the page's data, not in a tag.
    const workers = [...page.body.toString().matchAll(/"(\/graphiql\/[a-z]+\.worker\.[0-9a-f]{16}\.js)"/g)].map((m) => m[1]!);
    expect(workers).toHaveLength(3);
    for (const asset of [...assets, ...workers]) {
      const plain = await raw(`${fixture.api.url}${asset}`);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['vary']).toBe('accept-encoding');
      expect(asset).toContain(createHash('sha256').update(plain.body).digest('hex').slice(0, 16));
      const br = await raw(`${fixture.api.url}${asset}`, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gz = await raw(`${fixture.api.url}${asset}`, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      plainTotal += plain.body.length;
      brTotal += br.body.length;
    }
    // The bundle is about 9 MB as the package inlines it; a browser asking for br gets a quarter of that.
    expect(plainTotal).toBeGreaterThan(5_000_000);
    expect(brTotal).toBeLessThan(plainTotal / 3);
  });

  it('answers HEAD, and 404 for a file it does not have, 405 for a write, without a token', async () => {
    const head = await raw(`${fixture.api.url}${assets[0]}`, { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await raw(`${fixture.api.url}/graphiql/graphiql.0000000000000000.js`)).status).toBe(404);
    expect((await raw(`${fixture.api.url}${assets[0]}`, {}, 'POST')).status).toBe(405);
  });

  it('picks br over gzip, and honours q=0', () => {
    expect(preferredEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(preferredEncoding('gzip;q=1.0, br;q=0')).toBe('gzip');
    expect(preferredEncoding('identity')).toBeUndefined();
    expect(preferredEncoding(null)).toBeUndefined();
    expect(preferredEncoding('*')).toBe('gzip');
  });
});
