'use strict';
// Which hosts does installing sync-gateway contact? Runs each install under `strace -f` and lists every DNS name
// looked up (the query packets to port 53) and every address connected to, with the process that did it (the
// command and the directory it ran in, e.g. a dependency's install script). Exits 1 if anything but the npm
// registry was looked up or connected to (issue 34). Linux only; needs strace.
//
//   node scripts/check-install-hosts.js [ci|release|all] [--worktree]     (default: all, from HEAD)
//
// ci:      `npm ci` in a copy of this checkout's HEAD (--worktree: its tracked files as they are now), which also
//          runs `prepare` (Prisma client, build) as in a fresh clone.
// release: then `npm pack` in that copy, and `npm install --omit=dev` in the extracted tarball, as
//          docs/operations.md ("Installing without dev dependencies") tells an operator to.
// Each install gets an empty npm cache and XDG cache, so that nothing an earlier install left (npm's tarballs,
// Prisma's engines in ~/.cache/prisma) hides a download. KEEP_TMP=1 keeps the temporary directory and traces.
const { execFileSync, spawnSync } = require('node:child_process');
const { Buffer } = require('node:buffer');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { URL } = require('node:url');

const root = path.join(__dirname, '..');
const args = process.argv.slice(2);
const worktree = args.includes('--worktree');
const mode = args.find((a) => !a.startsWith('--')) ?? 'all';
if (!['ci', 'release', 'all'].includes(mode) || args.some((a) => a.startsWith('--') && a !== '--worktree')) {
  console.error('usage: node scripts/check-install-hosts.js [ci|release|all] [--worktree]');
  process.exit(2);
}
// Under `npm run` the environment holds npm's own settings for this checkout (npm_config_local_prefix would make the
// traced `npm ci` install here): drop them. Run the script with node directly to pass npm_config_* settings on.
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !(process.env.npm_lifecycle_event && /^npm_/i.test(key))));
const TRACED = 'execve,chdir,clone,clone3,fork,vfork,connect,sendto,sendmsg,sendmmsg,recvfrom,recvmsg';

// ---- strace output ----

/** A strace string with -xx ("\x2f\x76…") as a Buffer. */
const bytes = (quoted) => Buffer.from(quoted.replace(/\\x/g, ''), 'hex');
/** Every quoted string of a line, decoded. */
const strings = (text) => [...text.matchAll(/"((?:\\x[0-9a-f]{2})*)"/g)].map((m) => bytes(m[1]));

/** A DNS packet's question name, answers (A, AAAA, CNAME) and whether it is a response; undefined if it is none. */
function parseDns(buf) {
  if (buf.length < 17) return undefined;
  const isResponse = (buf[2] & 0x80) !== 0;
  const questions = buf.readUInt16BE(4);
  const answers = buf.readUInt16BE(6);
  if (questions !== 1) return undefined;
  const readName = (offset, depth = 0) => {
    const labels = [];
    for (let at = offset; depth < 10;) {
      if (at >= buf.length) return undefined;
      const len = buf[at];
      if (len === 0) return { name: labels.join('.'), end: at + 1 };
      if ((len & 0xc0) === 0xc0) {
        const target = readName(((len & 0x3f) << 8) | buf[at + 1], depth + 1);
        return target && { name: [...labels, target.name].filter(Boolean).join('.'), end: at + 2 };
      }
      if (len > 63) return undefined;
      const label = buf.subarray(at + 1, at + 1 + len).toString('latin1');
      if (!/^[A-Za-z0-9_-]+$/.test(label)) return undefined;
      labels.push(label);
      at += 1 + len;
    }
    return undefined;
  };
  const question = readName(12);
  if (!question?.name || question.end + 4 > buf.length) return undefined;
  const records = [];
  let at = question.end + 4;
  for (let i = 0; isResponse && i < answers && at < buf.length; i += 1) {
    const owner = readName(at);
    if (!owner || owner.end + 10 > buf.length) break;
    const type = buf.readUInt16BE(owner.end);
    const len = buf.readUInt16BE(owner.end + 8);
    const data = buf.subarray(owner.end + 10, owner.end + 10 + len);
    if (type === 1 && len === 4) records.push({ name: owner.name, type: 'A', value: [...data].join('.') });
    if (type === 28 && len === 16) records.push({ name: owner.name, type: 'AAAA', value: ipv6(data) });
    if (type === 5) records.push({ name: owner.name, type: 'CNAME', value: readName(owner.end + 10)?.name });
    at = owner.end + 10 + len;
  }
  return { name: question.name.toLowerCase(), isResponse, rcode: buf[3] & 0x0f, records };
}

function ipv6(data) {
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(data.readUInt16BE(i).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** The address of a sockaddr in a connect/sendto line, as { family, ip, port } (AF_INET and AF_INET6 only). */
function sockaddr(text) {
  const port = /sin6?_port=htons\((\d+)\)/.exec(text);
  if (/sa_family=AF_INET,/.test(text) && port) {
    const addr = /inet_addr\("((?:\\x[0-9a-f]{2})*)"\)/.exec(text);
    return addr && { family: 4, ip: bytes(addr[1]).toString(), port: Number(port[1]) };
  }
  if (/sa_family=AF_INET6,/.test(text) && port) {
    const addr = /inet_pton\(AF_INET6, "((?:\\x[0-9a-f]{2})*)"/.exec(text);
    return addr && { family: 6, ip: bytes(addr[1]).toString(), port: Number(port[1]) };
  }
  return undefined;
}

/** Reads a `strace -f -o FILE -xx` log: DNS questions and answers, connections, and each process's command and cwd. */
function readTrace(file) {
  const exec = new Map(); // pid -> argv of its last execve
  const cwd = new Map();
  const parent = new Map(); // pid -> the pid that cloned it (threads too)
  const pending = new Map(); // pid -> the first half of an <unfinished ...> call
  const lookups = []; // { name, pid, rcode? }
  const answers = new Map(); // ip -> Set(names)
  const connects = []; // { ip, port, family, pid, result }
  for (let line of fs.readFileSync(file, 'latin1').split('\n')) {
    const head = /^(\d+)\s+(.*)$/.exec(line);
    if (!head) continue;
    const pid = Number(head[1]);
    line = head[2];
    if (line.endsWith('<unfinished ...>')) {
      pending.set(pid, line.slice(0, -'<unfinished ...>'.length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(line);
    if (resumed) {
      line = (pending.get(pid) ?? '') + resumed[1];
      pending.delete(pid);
    }
    const call = /^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(.*)$/.exec(line);
    if (!call) continue;
    const [, name, args, ret, rest] = call;
    const ok = !ret.startsWith('-');
    if (name === 'execve' && ok) {
      exec.set(
        pid,
        strings(args.replace(/^"[^"]*",\s*/, '')).map((b) => b.toString()),
      );
    } else if (name === 'chdir' && ok) {
      cwd.set(pid, strings(args)[0].toString());
    } else if (['clone', 'clone3', 'fork', 'vfork'].includes(name) && ok && Number(ret) > 0) {
      parent.set(Number(ret), pid);
    } else if (name === 'connect') {
      const addr = sockaddr(args);
      if (addr) connects.push({ ...addr, pid, result: ok ? 'ok' : rest.trim().split(' ')[0] });
    } else if (/^(send|recv)/.test(name)) {
      for (const buf of strings(args)) {
        const dns = parseDns(buf);
        if (!dns) continue;
        if (!dns.isResponse) lookups.push({ name: dns.name, pid });
        for (const record of dns.records) {
          if (record.type === 'A' || record.type === 'AAAA') {
            if (!answers.has(record.value)) answers.set(record.value, new Set());
            answers.get(record.value).add(dns.name);
          }
        }
      }
    }
  }
  /** The command a pid ran and the directory it ran in: its own (execve, chdir), else its nearest ancestor's. */
  const processOf = (pid) => {
    const up = (map) => {
      for (let at = pid, hops = 0; at !== undefined && hops < 200; at = parent.get(at), hops += 1) if (map.has(at)) return map.get(at);
      return undefined;
    };
    return { argv: up(exec) ?? ['?'], cwd: up(cwd) };
  };
  return { lookups, answers, connects, processOf };
}

// ---- what is allowed ----

function npmConfig(cwd, key) {
  return execFileSync('npm', ['config', 'get', key], { cwd, env: baseEnv, encoding: 'utf8' }).trim();
}

/** The registry hosts npm uses here (the default and any scoped one), and the resolver's addresses. */
function allowed(cwd) {
  const hosts = new Set(['registry.npmjs.org']);
  const list = JSON.parse(execFileSync('npm', ['config', 'list', '--json'], { cwd, env: baseEnv, encoding: 'utf8' }));
  for (const [key, value] of Object.entries(list)) {
    if ((key === 'registry' || key.endsWith(':registry')) && typeof value === 'string') hosts.add(new URL(value).hostname);
  }
  for (const key of ['proxy', 'https-proxy']) {
    const value = npmConfig(cwd, key);
    if (value && value !== 'null') {
      hosts.add(new URL(value).hostname);
      console.log(`note: npm's ${key} is ${value}: hosts behind it are not seen here`);
    }
  }
  const ips = new Set();
  for (const host of hosts) {
    const out = spawnSync('getent', ['ahosts', host], { encoding: 'utf8' }).stdout ?? '';
    for (const line of out.split('\n')) if (line.trim()) ips.add(line.split(/\s+/)[0]);
  }
  const resolv = fs.existsSync('/etc/resolv.conf') ? fs.readFileSync('/etc/resolv.conf', 'utf8') : '';
  const nameservers = new Set([...resolv.matchAll(/^nameserver\s+(\S+)/gm)].map((m) => m[1]));
  return { hosts, ips, nameservers };
}

const loopback = (ip) => ip.startsWith('127.') || ip === '::1' || ip.startsWith('::ffff:127.');

// ---- running the installs ----

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'install-hosts-'));
const traces = path.join(work, 'traces');
fs.mkdirSync(traces);
let failed = false;

/** Runs `npm args…` in cwd under strace and reports what it contacted. */
function traced(step, cwd, args) {
  const log = path.join(traces, `${step}.strace`);
  const env = {
    ...baseEnv,
    npm_config_cache: path.join(work, `npm-cache-${step}`),
    XDG_CACHE_HOME: path.join(work, `xdg-cache-${step}`),
  };
  console.log(`\n== ${step}: npm ${args.join(' ')} (in ${cwd})`);
  const started = Date.now();
  const run = spawnSync('strace', ['-f', '-qq', '-xx', '-s', '4096', '-e', `trace=${TRACED}`, '-o', log, 'npm', ...args], {
    cwd,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  console.log(`-- npm exited ${run.status} after ${Math.round((Date.now() - started) / 1000)} s`);
  if (run.status !== 0) failed = true;

  const { lookups, answers, connects, processOf } = readTrace(log);
  const { hosts, ips, nameservers } = allowed(cwd);
  for (const [ip, names] of answers) if ([...names].some((n) => hosts.has(n))) ips.add(ip);
  /** The processes behind some pids (a lookup runs on a thread of libuv's pool), one line each: command and cwd. */
  const describe = (pids) => {
    const lines = new Map();
    for (const pid of pids) {
      const p = processOf(pid);
      const where = p.cwd ? ` (in ${path.relative(cwd, p.cwd) || '.'})` : '';
      const line = `${p.argv.join(' ').slice(0, 160)}${where}`;
      lines.set(line, [...(lines.get(line) ?? []), pid]);
    }
    for (const [line, ids] of lines) console.log(`         by ${line} [pid ${ids.join(', ')}]`);
  };

  const seen = new Map();
  for (const { name, pid } of lookups) {
    if (!seen.has(name)) seen.set(name, { count: 0, pids: new Set() });
    seen.get(name).count += 1;
    seen.get(name).pids.add(pid);
  }
  console.log(`DNS names looked up: ${seen.size === 0 ? 'none' : ''}`);
  for (const [name, { count, pids }] of seen) {
    const ok = hosts.has(name);
    if (!ok) failed = true;
    console.log(`  ${ok ? 'ok  ' : 'BAD '} ${name} (${count} queries)`);
    if (!ok) describe(pids);
  }

  const byAddress = new Map();
  for (const c of connects) {
    const key = c.family === 6 ? `[${c.ip}]:${c.port}` : `${c.ip}:${c.port}`;
    if (!byAddress.has(key)) byAddress.set(key, { ...c, count: 0, pids: new Set(), results: new Set() });
    const entry = byAddress.get(key);
    entry.count += 1;
    entry.pids.add(c.pid);
    entry.results.add(c.result);
  }
  console.log(`Addresses connected to: ${byAddress.size === 0 ? 'none' : ''}`);
  for (const [key, c] of byAddress) {
    const ok = loopback(c.ip) || ips.has(c.ip) || (c.port === 53 && nameservers.has(c.ip));
    if (!ok) failed = true;
    const names = answers.get(c.ip) ? ` = ${[...answers.get(c.ip)].join(', ')}` : '';
    const what = c.port === 53 && nameservers.has(c.ip) ? ' (the resolver)' : loopback(c.ip) ? ' (loopback)' : names;
    console.log(`  ${ok ? 'ok  ' : 'BAD '} ${key}${what} (${c.count}×, ${[...c.results].join('/')})`);
    if (!ok) describe(c.pids);
  }
  return run.status === 0;
}

try {
  // A fresh clone: the files of HEAD, or with --worktree the tracked files as they are now (to check an uncommitted
  // package.json or .npmrc; others' half-done edits may then break the build).
  const checkout = path.join(work, 'checkout');
  fs.mkdirSync(checkout);
  if (worktree) {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && fs.existsSync(path.join(root, f)));
    for (const file of files) fs.cpSync(path.join(root, file), path.join(checkout, file), { recursive: true });
  } else {
    execFileSync('sh', ['-c', 'git archive --format=tar HEAD | tar -xf - -C "$1"', 'sh', checkout], { cwd: root, stdio: 'inherit' });
  }
  console.log(
    `npm ${execFileSync('npm', ['--version'], { cwd: checkout, env: baseEnv, encoding: 'utf8' }).trim()}, node ${process.version}`,
  );

  const installed = traced('ci', checkout, ['ci', '--no-audit', '--no-fund']);
  if (mode !== 'ci' && installed) {
    const packed = traced('pack', checkout, ['pack', '--pack-destination', work]);
    const tarball = fs.readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (packed && tarball) {
      const release = path.join(work, 'release');
      fs.mkdirSync(release);
      execFileSync('tar', ['xzf', path.join(work, tarball), '-C', release, '--strip-components=1']);
      traced('release', release, ['install', '--omit=dev', '--no-audit', '--no-fund']);
    } else failed = true;
  }
} finally {
  if (process.env.KEEP_TMP) console.log(`\nkept ${work} (traces in ${traces})`);
  else fs.rmSync(work, { recursive: true, force: true });
}
console.log(failed ? '\nFAILED: a host other than the registry was contacted, or an install failed' : '\nOK: only the registry');
process.exit(failed ? 1 : 0);
