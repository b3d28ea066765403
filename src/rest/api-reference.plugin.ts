import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';

export const API_REFERENCE_PATH = '/api/reference';
export const OPENAPI_DOCUMENT_PATH = '/api/doc';

/**
 * swagger-ui-dist's own files, found through the installed package (not a path relative to
 * dist/), so the compiled server and the Docker image read them where npm put them.
 */
function swaggerUiDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

// Swagger UI sets element styles from script (allowed); its stylesheet and images come from here.
const REFERENCE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>sync-gateway API reference</title>
    <link rel="stylesheet" href="${API_REFERENCE_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="${API_REFERENCE_PATH}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${API_REFERENCE_PATH}/swagger-ui-bundle.js"></script>
    <script src="${API_REFERENCE_PATH}/reference.js"></script>
  </body>
</html>
`;

// No validator badge (it calls validator.swagger.io) and no top bar to load other documents.
const INITIALIZER_JS = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_DOCUMENT_PATH)},
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

type Asset = { file?: string; text?: string; contentType: string };

const ASSETS: Record<string, Asset> = {
  '': { text: INDEX_HTML, contentType: 'text/html; charset=utf-8' },
  '/reference.js': { text: INITIALIZER_JS, contentType: 'text/javascript; charset=utf-8' },
  '/swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8' },
  '/swagger-ui.css': { file: 'swagger-ui.css', contentType: 'text/css; charset=utf-8' },
  '/favicon-32x32.png': { file: 'favicon-32x32.png', contentType: 'image/png' },
};

/**
 * The human API reference at /api/reference: Swagger UI, bundled from npm, rendering /api/doc.
 * Public like /api/doc, and nothing on the page calls outside this service. A browser asking for
 * /api/doc itself (Accept: text/html first) is sent here; programs keep getting the JSON.
 */
export function useApiReference(): Plugin {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const read = (key: string, asset: Asset) => {
    let body = cache.get(key);
    if (!body) {
      body =
        asset.text !== undefined
          ? new TextEncoder().encode(asset.text)
          : new Uint8Array(readFileSync(path.join(swaggerUiDir(), asset.file!)));
      cache.set(key, body);
    }
    return body;
  };
  return {
    onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (url.pathname === OPENAPI_DOCUMENT_PATH && prefersHtml(request.headers.get('accept'))) {
        endResponse(
          new Response(null, { status: 303, statusText: 'See Other', headers: { location: API_REFERENCE_PATH, vary: 'accept' } }),
        );
        return;
      }
      if (url.pathname !== API_REFERENCE_PATH && !url.pathname.startsWith(`${API_REFERENCE_PATH}/`)) return;
      const key = url.pathname.slice(API_REFERENCE_PATH.length).replace(/^\/$/, '');
      const asset = Object.hasOwn(ASSETS, key) ? ASSETS[key] : undefined;
      if (!asset) return; // the conventions and the REST edge answer 404
      const headers: Record<string, string> = {
        'content-type': asset.contentType,
        'cache-control': key === '' ? 'no-cache' : 'public, max-age=3600',
      };
      if (key === '') headers['content-security-policy'] = REFERENCE_CSP;
      endResponse(new Response(request.method === 'HEAD' ? null : read(key, asset), { headers }));
    },
  };
}

/** A browser's navigation lists text/html before any JSON type; fetch() and curl do not. */
function prefersHtml(accept: string | null): boolean {
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const html = types.indexOf('text/html');
  const json = types.findIndex((t) => t === 'application/json' || t.endsWith('+json'));
  return html !== -1 && (json === -1 || html < json);
}
