import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import type { RegistrationMode } from '../config';
import { errorResponse } from '../errors/app-error';

export const CONSOLE_PATH = '/admin';

/** Where `npm run build:console` (run by `npm install`) writes the console. */
export const CONSOLE_BUILD_DIR = path.resolve(__dirname, '..', '..', 'dist', 'console');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
};

// The console is same-origin only: its scripts, styles and GraphQL calls all come from here.
const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

type StaticFile = { body: Uint8Array<ArrayBuffer>; contentType: string; immutable: boolean };

export type AdminConsoleOptions = {
  /** The console's Vite build (dist/console unless given). */
  buildDir?: string | undefined;
  /** Told to the page, so that sign-in offers no registration the server would refuse. */
  registration?: RegistrationMode;
};

/**
 * Serves the admin console's built files under /admin without a token (the page holds no data;
 * every GraphQL call it makes carries the signed-in session). Any other path under /admin is the
 * single-page app's own route and gets index.html. Files are read once at start: the build is a
 * few hundred kilobytes. The page is told the REGISTRATION mode in a meta tag, so the sign-in page
 * offers no registration that the server would refuse (no query is public, and this needs none).
 */
export function useAdminConsole({ buildDir = CONSOLE_BUILD_DIR, ...options }: AdminConsoleOptions = {}): Plugin {
  const files = loadBuild(buildDir);
  const built = files.get('/index.html');
  const index = built && options.registration ? withRegistration(built, options.registration) : built;
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== CONSOLE_PATH && !url.pathname.startsWith(`${CONSOLE_PATH}/`)) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(errorResponse('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}`));
        return;
      }
      if (!index) {
        endResponse(errorResponse('SERVICE_UNAVAILABLE', 'The admin console is not built: run `npm run build:console`'));
        return;
      }
      const relative = url.pathname.slice(CONSOLE_PATH.length) || '/';
      const file = relative === '/index.html' ? index : (files.get(relative) ?? (path.extname(relative) === '' ? index : undefined));
      if (!file) {
        endResponse(errorResponse('NOT_FOUND', `No file ${url.pathname}`));
        return;
      }
      const headers: Record<string, string> = {
        'content-type': file.contentType,
        // Hashed asset names change with their content; the page itself is always revalidated.
        'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      };
      if (file === index) headers['content-security-policy'] = CONSOLE_CSP;
      endResponse(new Response(request.method === 'HEAD' ? null : file.body, { headers }));
    },
  };
}

/** The mode the sign-in page reads: `<meta name="sync-gateway-registration" content="closed">`. */
function withRegistration(file: StaticFile, mode: RegistrationMode): StaticFile {
  const html = new TextDecoder().decode(file.body);
  const meta = `<meta name="sync-gateway-registration" content="${mode}" />`;
  const tagged = /<\/head>/i.test(html) ? html.replace(/<\/head>/i, `${meta}</head>`) : html.replace(/^(<!doctype html>)?/i, `$1${meta}`);
  return { ...file, body: new TextEncoder().encode(tagged) as Uint8Array<ArrayBuffer> };
}

function loadBuild(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      const relative = `/${path.relative(dir, full).split(path.sep).join('/')}`;
      files.set(relative, {
        body: new Uint8Array(readFileSync(full)),
        contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
        immutable: relative.startsWith('/assets/'),
      });
    }
  };
  walk(dir);
  return files;
}
