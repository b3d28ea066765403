import { spawn } from 'node:child_process';
import { createPostgresDatabase } from '../support/database';
import { LOADER, ROOT, sourceModule } from '../support/process';

/**
 * A CLI command opens the store, works, closes it and then has nothing left to do: its process
 * must end there. Whatever still keeps Node's event loop alive after the close (a forgotten timer
 * kept every command alive for seconds) is read in a process of its own, where nothing else runs.
 */
describe('closing a store', () => {
  it('leaves nothing that keeps the process alive, so a CLI command exits once it is done', async () => {
    const database = await createPostgresDatabase('embedded');
    try {
      const script = `
        const { openStore } = require(${JSON.stringify(sourceModule('db/store'))});
        (async () => {
          const store = await openStore({ databaseUrl: process.env.URL, dataDir: '/nonexistent', logger: require('pino')({ level: 'silent' }) });
          await store.migrate();
          await store.prisma.apiToken.count();
          await store.close();
          setImmediate(() => console.log(JSON.stringify(process.getActiveResourcesInfo())));
        })();`;
      const child = spawn(process.execPath, [...LOADER, '-e', script], { cwd: ROOT, env: { ...process.env, URL: database.url } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      // The pipes to this process are all that is left.
      expect((JSON.parse(stdout) as string[]).filter((resource) => resource !== 'PipeWrap')).toEqual([]);
    } finally {
      await database.drop();
    }
  });
});
