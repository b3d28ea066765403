import { readFileSync } from 'node:fs';
import path from 'node:path';

type LockEntry = { optionalDependencies?: Record<string, string> };

/**
 * `npm ci` refuses a lock that lacks the native packages of other platforms (npm leaves them out
 * when it updates a lock on one machine): every optional dependency must have its entry.
 */
it('package-lock.json lists every optional dependency of every package, for every platform', () => {
  const lock = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const keys = new Set(Object.keys(lock.packages));
  const missing = Object.entries(lock.packages).flatMap(([where, entry]) =>
    Object.keys(entry.optionalDependencies ?? {})
      .filter((name) => !resolvable(keys, where, name))
      .map((name) => `${name} (optional dependency of ${where || 'the project'})`),
  );
  expect(missing).toEqual([]);
});

/** Node's lookup: node_modules/<name> beside the package, then in each folder above it. */
function resolvable(keys: Set<string>, where: string, name: string): boolean {
  for (let dir = where; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules')))) {
    if (keys.has(`${dir ? `${dir}/` : ''}node_modules/${name}`)) return true;
    if (dir === '') return false;
  }
}
