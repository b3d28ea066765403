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
};

export function startupFields(input: {
  url: string;
  backend: StartupFields['backend'];
  dataDir: string;
  location: string;
  worker: boolean;
  activeApiTokens: number;
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
    ...(next ? { next } : {}),
  };
}

/** The human block printed at start when logs are pretty. */
export function renderStartupBanner(fields: Partial<StartupFields>): string[] {
  const rows: Array<[string, string | undefined]> = [
    ['REST API', fields.url ? `${fields.url}/api/v1` : undefined],
    ['API reference', fields.apiReference],
    ['OpenAPI', fields.apiDoc],
    ['GraphQL', fields.graphql],
    ['Admin console', fields.admin],
    fields.dataDir ? ['Data directory', fields.dataDir] : ['Database', fields.location ? `PostgreSQL ${fields.location}` : undefined],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    `sync-gateway is ready${fields.worker === false ? ' (webhook worker off)' : ''}`,
    ...rows.filter(([, value]) => value !== undefined).map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    ...(fields.next ? [`  → ${fields.next}`] : []),
  ];
}
