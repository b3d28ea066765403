import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `<name>.entry.js` next to the calling module: built, the entries are
 * JavaScript; under tsx (`npm run dev`, the tests) they are TypeScript, loaded through tsx.
 */
export function startThread(
  dirname: string,
  name: string,
  workerData: unknown,
  options: { resourceLimits?: Worker['resourceLimits'] } = {},
): Worker {
  const extension = path.extname(__filename);
  const entry = path.join(dirname, `${name}.entry${extension}`);
  return extension === '.ts'
    ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData, ...options })
    : new Worker(entry, { workerData, ...options });
}
