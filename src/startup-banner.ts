/** The message of the start-up log line; the pretty log renders it as a block (pretty-log.ts). */
export const STARTUP_MESSAGE = 'sync-gateway listening';

/** Where things are, as fields of the JSON start-up line. */
export type StartupFields = {
  url: string;
  admin: string;
  graphql: string;
  apiDoc: string;
  apiReference: string;
  backend: 'embedded' | 'postgresql';
  /** The embedded store's directory; absent on PostgreSQL. */
  dataDir?: string;
  /** Where the data lives, without credentials. */
  location: string;
  worker: boolean;
  activeApiTokens: number;
  /** What to do next when there is no API token yet. */
  next?: string;
  /** How to make the first admin account, until one is known to exist. */
  firstAdmin?: string;
  /** How to connect another shop (its own channel), once there is a token: the three commands of docs/operations.md. */
  anotherShop?: string;
};

/** The three commands that connect a second shop with a feed of its own (issue 31, ADR 0045). */
export const ANOTHER_SHOP_COMMANDS =
  'another shop with its own feed: `node bin/sync-gateway.js channel create shop-b --from all`, ' +
  '`node bin/sync-gateway.js token create --name shop-b --role webshop --channel shop-b`, then give shop-b that token';

/** The command that makes an admin account (the first one must come from the CLI unless REGISTRATION allows more). */
export const ADMIN_CREATE_COMMAND = 'node bin/sync-gateway.js admin create --email you@example.com';

export function startupFields(input: {
  url: string;
  backend: StartupFields['backend'];
  dataDir: string;
  location: string;
  worker: boolean;
  activeApiTokens: number;
  /** Admin accounts in the store; the hint to make one shows unless this says there is one. */
  adminAccounts?: number;
}): StartupFields {
  const { url, backend } = input;
  // On the embedded store the CLI connects to this server's cluster through the socket in DATA_DIR (ADR 0042).
  const next =
    input.activeApiTokens > 0
      ? undefined
      : backend === 'embedded'
        ? 'no API token yet: run `node bin/sync-gateway.js token create --name erp` in another terminal (the server keeps running)'
        : 'no API token yet: run `node bin/sync-gateway.js token create --name erp` (with the same DATABASE_URL)';
  return {
    url,
    admin: `${url}/admin`,
    graphql: `${url}/graphql`,
    apiDoc: `${url}/api/doc`,
    apiReference: `${url}/api/reference`,
    backend,
    ...(backend === 'embedded' ? { dataDir: input.dataDir } : {}),
    location: input.location,
    worker: input.worker,
    activeApiTokens: input.activeApiTokens,
    ...(next ? { next } : { anotherShop: ANOTHER_SHOP_COMMANDS }),
    ...(input.adminAccounts !== undefined && input.adminAccounts > 0 ? {} : { firstAdmin: ADMIN_CREATE_COMMAND }),
  };
}

/** The human block printed at start when logs are pretty. */
export function renderStartupBanner(fields: Partial<StartupFields>): string[] {
  const rows: Array<[string, string | undefined]> = [
    ['REST API', fields.url ? `${fields.url}/api/v1` : undefined],
    ['API reference', fields.apiReference],
    ['OpenAPI', fields.apiDoc],
    ['GraphQL', fields.graphql],
    ['Admin console', fields.admin && fields.firstAdmin ? `${fields.admin}  (first admin: ${fields.firstAdmin})` : fields.admin],
    fields.dataDir ? ['Data directory', fields.dataDir] : ['Database', fields.location ? `PostgreSQL ${fields.location}` : undefined],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    `sync-gateway is ready${fields.worker === false ? ' (webhook worker off)' : ''}`,
    ...rows.filter(([, value]) => value !== undefined).map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    ...(fields.next ? [`  → ${fields.next}`] : []),
    ...(fields.anotherShop ? [`  → ${fields.anotherShop}`] : []),
  ];
}
