/**
 * Busy stretches of a `--cpu-prof` profile: runs of samples on the main thread with no idle sample
 * between them (the event loop answered nothing else meanwhile), the longest first, each with the
 * functions its time went to (self time, and the named frames of ours on the stack). Usage:
 * `tsx bench/lib/cpu-stretches.ts file.cpuprofile [min ms, default 10]`.
 */
import { readFileSync } from 'node:fs';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };

const [file, minArg] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as Profile;
const minMs = Number(minArg ?? 10);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: Node) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
/** Frames of this project (dist/) on the stack, innermost first. */
const ours = (id: number): string[] => {
  const out: string[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at)!;
    if (n.callFrame.url.includes('/dist/') && n.callFrame.functionName) out.push(n.callFrame.functionName);
  }
  return out;
};

type Stretch = { start: number; ms: number; samples: Array<[number, number]> };
const stretches: Stretch[] = [];
let t = 0;
let current: Stretch | undefined;
let totalBusy = 0;
profile.samples.forEach((id, i) => {
  const dt = (profile.timeDeltas[i] ?? 0) / 1000;
  t += dt;
  const name = byId.get(id)!.callFrame.functionName;
  if (name === '(idle)') {
    current = undefined;
    return;
  }
  totalBusy += dt;
  if (!current) stretches.push((current = { start: t, ms: 0, samples: [] }));
  current.ms += dt;
  current.samples.push([id, dt]);
});

// SKIP_S: leave out the start (module loading, schema building) before the first push.
const skipMs = Number(process.env.SKIP_S ?? 0) * 1000;
/**
 * GAPS=file of bench/lib/loop-stretches.cjs: its gaps (the event loop measured from inside) are the
 * stretches, instead of runs without an idle sample (a turn through setImmediate is never idle).
 */
if (process.env.GAPS) {
  const gaps = (JSON.parse(readFileSync(process.env.GAPS, 'utf8')) as { gaps: Array<[number, number, number, number]> }).gaps;
  stretches.length = 0;
  const times: number[] = [];
  let at = profile.startTime;
  for (const dt of profile.timeDeltas) times.push((at += dt));
  for (const [wallMs, , , endUs] of gaps) {
    const from = endUs - wallMs * 1000;
    const samples: Array<[number, number]> = [];
    profile.samples.forEach((id, i) => {
      if (times[i]! >= from && times[i]! <= endUs && byId.get(id)!.callFrame.functionName !== '(idle)')
        samples.push([id, (profile.timeDeltas[i] ?? 0) / 1000]);
    });
    stretches.push({ start: (from - profile.startTime) / 1000, ms: samples.reduce((a, [, dt]) => a + dt, 0), samples });
  }
}
const long = stretches.filter((s) => s.ms >= minMs && s.start >= skipMs).sort((a, b) => b.ms - a.ms);
console.log(
  `${(t / 1000).toFixed(1)} s profiled, ${(totalBusy / 1000).toFixed(2)} s busy; ${long.length} stretches ≥ ${minMs} ms ` +
    `(${long.reduce((a, s) => a + s.ms, 0).toFixed(0)} ms), longest ${long
      .slice(0, 12)
      .map((s) => s.ms.toFixed(0))
      .join(' ')}`,
);
const top = (m: Map<string, number>, n: number, total: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `    ${((100 * v) / total).toFixed(0).padStart(3)} %  ${k}`)
    .join('\n');
const selfAll = new Map<string, number>();
const oursAll = new Map<string, number>();
for (const s of long) {
  for (const [id, dt] of s.samples) {
    const self = label(byId.get(id)!);
    selfAll.set(self, (selfAll.get(self) ?? 0) + dt);
    const frames = ours(id);
    // Outermost handler first, up to three deep: which step of a push the time belongs to.
    const key = frames.length ? frames.reverse().slice(-3).join(' > ') : '(no frame of ours: runtime, GC, libraries)';
    oursAll.set(key, (oursAll.get(key) ?? 0) + dt);
  }
}
const longTotal = long.reduce((a, s) => a + s.ms, 0);
console.log(`  self time in those stretches:\n${top(selfAll, 25, longTotal)}`);
console.log(`  innermost frames of ours on the stack:\n${top(oursAll, 25, longTotal)}`);
for (const s of long.slice(0, Number(process.env.SHOW ?? 3))) {
  const m = new Map<string, number>();
  for (const [id, dt] of s.samples) {
    const key = ours(id).slice(0, 2).join(' < ') || label(byId.get(id)!);
    m.set(key, (m.get(key) ?? 0) + dt);
  }
  console.log(`  stretch at ${(s.start / 1000).toFixed(2)} s, ${s.ms.toFixed(0)} ms:\n${top(m, 10, s.ms)}`);
}
