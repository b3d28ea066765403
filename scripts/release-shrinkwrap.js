'use strict';
// `npm pack` ships npm-shrinkwrap.json so that a release installs the tested tree. Written from
// package-lock.json with only the packages production reaches: the lock also holds the dev tools,
// and npm marks a dev tool that is an optional peer of a production package (prisma and typescript,
// through @prisma/client) "devOptional", which `npm install --omit=dev` still installs, running
// @prisma/engines' install script (it downloads a schema engine the service never uses: it runs
// the WebAssembly one). Without those entries npm leaves an optional peer out (issue 34).
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const target = process.argv[2] ?? path.join(root, 'npm-shrinkwrap.json');
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const packages = lock.packages;

/** Where npm resolves `name` from the package at `from`: its own node_modules, then each parent's. */
function resolve(from, name) {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
  }
}

/** A package's production edges: dependencies, optional ones, and peers that are not optional. */
function edges(entry) {
  const optionalPeers = entry.peerDependenciesMeta ?? {};
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

const reached = new Set(['']);
const queue = [''];
while (queue.length > 0) {
  const at = queue.pop();
  for (const name of edges(packages[at])) {
    const found = resolve(at, name);
    if (found && !reached.has(found)) {
      reached.add(found);
      queue.push(found);
    }
  }
}

const production = Object.fromEntries(Object.entries(packages).filter(([key]) => reached.has(key)));
// The packed package.json has no devDependencies either (clean-package, in prepack): the root entry matches it.
production[''] = { ...production[''] };
delete production[''].devDependencies;
const left = Object.keys(packages).filter((key) => !reached.has(key) && !packages[key].dev);
writeFileSync(target, `${JSON.stringify({ ...lock, packages: production }, null, 2)}\n`);
console.log(`${path.basename(target)}: ${reached.size - 1} production packages; left out besides dev ones: ${left.join(', ') || 'none'}`);
