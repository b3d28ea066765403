import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors/app-error';

/** Where GraphiQL's files are served: a tree of its own, public and outside Yoga's /graphql. */
export const GRAPHIQL_ASSETS_PATH = '/graphiql';

/**
 * What GraphiQL opens with when the browser holds no tab of its own: a query every role may run,
 * and the header its answer needs. `sgw_…` is a placeholder to replace with a token from
 * `node bin/sync-gateway.js token create …` (or the console's API tokens page).
 */
export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'sync-gateway GraphiQL',
  defaultQuery: `# Put your API token into the Headers tab below (replace sgw_…), then run this with ▶ or Ctrl+Enter.
# A token comes from \`node bin/sync-gateway.js token create --name NAME --role ROLE\` or the admin console.
query PendingChanges {
  pendingChanges {
    products
    partners
    saleOrders
    priceItems
    stocks
    purchaseOrders
  }
}
`,
  headers: JSON.stringify({ Authorization: 'Bearer sgw_…' }, null, 2),
};

/**
 * The page's policy (set by useSecurityHeaders on the page Yoga renders): scripts, workers,
 * styles, images and requests from this origin only. Monaco sets inline styles, so styles allow
 * them; no script runs inline (the options travel as JSON data, read by the boot script).
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

type Encoding = 'br' | 'gzip';
type Asset = { body: Buffer; contentType: string; encoded: Map<Encoding, Promise<Buffer>> };
type Build = { assets: Map<string, Asset>; urls: Record<'js' | 'css' | 'favicon' | 'boot' | Worker, string> };
type Worker = 'editorWorkerService' | 'json' | 'graphql';

const JS = 'text/javascript; charset=utf-8';

// Read by the boot script: Monaco asks for its workers by label; the options come as JSON data.
const BOOT_JS = `(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return config.workers[label]; },
  };
  YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), config.options);
})();
`;

let build: Promise<Build> | undefined;

/**
 * GraphiQL from @graphql-yoga/render-graphiql, served from here (Yoga's default loads it from a
 * CDN, which a closed network never reaches). The package inlines 9 MB of script, styles and
 * workers into each page, uncacheable; here they are files named by their content's hash, cached
 * for a year and compressed, and the page itself is a kilobyte. The module is loaded on the first
 * GraphiQL request rather than at start: its bundle stays in memory once loaded.
 */
export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { urls } = await loadBuild();
  const config = { options, workers: { editorWorkerService: urls.editorWorkerService, json: urls.json, graphql: urls.graphql } };
  // `<` escaped: a title or query holding "</script>" stays data.
  const data = JSON.stringify(config).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${urls.favicon}" />
    <link rel="stylesheet" href="${urls.css}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-config">${data}</script>
    <script src="${urls.js}"></script>
    <script src="${urls.boot}"></script>
  </body>
</html>
`;
}

/**
 * Serves GraphiQL's files under /graphiql/ without a token (they hold no data), br or gzip as the
 * request accepts, each compressed once on first demand (off the event loop) and kept.
 */
export function useGraphiqlAssets(): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (!url.pathname.startsWith(`${GRAPHIQL_ASSETS_PATH}/`)) return;
      return serveAsset(request, url.pathname.slice(GRAPHIQL_ASSETS_PATH.length + 1), endResponse);
    },
  };
}

async function serveAsset(request: Request, name: string, endResponse: (response: Response) => void): Promise<void> {
  const asset = (await loadBuild()).assets.get(name);
  if (!asset) {
    endResponse(errorResponse('NOT_FOUND', `No file ${GRAPHIQL_ASSETS_PATH}/${name}`));
    return;
  }
  const encoding = preferredEncoding(request.headers.get('accept-encoding'));
  const body = encoding ? await encoded(asset, encoding) : asset.body;
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    // The name changes with the content: a browser or proxy may keep a file for good.
    'cache-control': 'public, max-age=31536000, immutable',
    vary: 'accept-encoding',
    'content-length': String(body.byteLength),
  };
  if (encoding) headers['content-encoding'] = encoding;
  endResponse(new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers }));
}

/** br before gzip when both are accepted (smaller); q=0 refuses an encoding. */
export function preferredEncoding(header: string | null): Encoding | undefined {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (token && !(q && Number(q.slice(2)) === 0)) accepted.add(token);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function encoded(asset: Asset, encoding: Encoding): Promise<Buffer> {
  let body = asset.encoded.get(encoding);
  if (!body) {
    // Brotli quality 5: within a few percent of 9 at a third of the time (11 takes half a minute on 5 MB).
    body =
      encoding === 'br'
        ? brotli(asset.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: asset.body.length } })
        : gzipAsync(asset.body, { level: 6 });
    asset.encoded.set(encoding, body);
  }
  return body;
}

function loadBuild(): Promise<Build> {
  build ??= (async () => {
    // The bundle's own file: the package's exports name only its index, which inlines it into a page.
    const entry = require.resolve('@graphql-yoga/render-graphiql');
    const bundle = (await import(path.join(path.dirname(entry), 'graphiql.js'))) as Record<string, string>;
    const favicon = /^data:([^;,]+);base64,(.*)$/s.exec(bundle['favicon'] ?? '');
    const files: Array<[stem: string, ext: string, body: Buffer, contentType: string]> = [
      ['graphiql', 'js', Buffer.from(bundle['js']!), JS],
      ['graphiql', 'css', Buffer.from(bundle['css']!), 'text/css; charset=utf-8'],
      ['editor.worker', 'js', Buffer.from(bundle['editorWorkerService']!), JS],
      ['json.worker', 'js', Buffer.from(bundle['jsonWorker']!), JS],
      ['graphql.worker', 'js', Buffer.from(bundle['graphqlWorker']!), JS],
      ['boot', 'js', Buffer.from(BOOT_JS), JS],
      ['favicon', 'ico', Buffer.from(favicon?.[2] ?? '', 'base64'), favicon?.[1] ?? 'image/x-icon'],
    ];
    const assets = new Map<string, Asset>();
    const url = (stem: string, ext: string, body: Buffer, contentType: string) => {
      const name = `${stem}.${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${ext}`;
      assets.set(name, { body, contentType, encoded: new Map() });
      return `${GRAPHIQL_ASSETS_PATH}/${name}`;
    };
    const [js, css, editorWorkerService, json, graphql, boot, icon] = files.map((f) => url(...f)) as [string, ...string[]];
    return { assets, urls: { js, css, editorWorkerService, json, graphql, boot, favicon: icon } } as Build;
  })();
  return build;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
