/**
 * Memory of a whole service as the kernel accounts it (issue 29, ADR 0042): the PSS of the Node
 * process and its descendants plus the PSS of the embedded cluster's postmaster and its children.
 * pg_ctl daemonises the postmaster, so it is not a descendant of Node: it is found through
 * DATA_DIR/postgres/postmaster.pid. PSS shares each page among the processes that map it, so the
 * cluster's shared buffers count once, not once per backend as an RSS sum would. The same method
 * as /work/shared/tools/pss-tree (/proc/<pid>/smaps_rollup, children from /proc/<pid>/task/<tid>/children).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const MB = 1024 * 1024;

export type TreeMemory = {
  /** PSS summed over every process of the trees, MB. */
  pssMb: number;
  /** The first root's own RSS (the Node process: what the PGlite-era benches reported), MB. */
  rootRssMb: number;
  /** PSS of the first root's tree alone (Node and its children), MB. */
  rootPssMb: number;
  processes: number;
};

function children(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

function kilobytes(file: string, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // the process exited between listing and reading
  }
}

/** Every PID of the trees rooted at `roots` (each root included). */
export function processTree(roots: number[]): number[] {
  const seen = new Set<number>();
  const walk = (pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    for (const child of children(pid)) walk(child);
  };
  roots.forEach(walk);
  return [...seen];
}

/** PSS of the trees rooted at `roots`, summed. */
export function treeMemory(roots: number[]): TreeMemory {
  const first = new Set(roots[0] === undefined ? [] : processTree([roots[0]]));
  const pids = processTree(roots);
  let pssKb = 0;
  let rootPssKb = 0;
  let processes = 0;
  for (const pid of pids) {
    const pss = kilobytes(`/proc/${pid}/smaps_rollup`, 'Pss');
    if (pss > 0) {
      pssKb += pss;
      if (first.has(pid)) rootPssKb += pss;
      processes++;
    }
  }
  const rootRss = roots[0] === undefined ? 0 : kilobytes(`/proc/${roots[0]}/status`, 'VmRSS');
  return { pssMb: pssKb / 1024, rootRssMb: rootRss / 1024, rootPssMb: rootPssKb / 1024, processes };
}

/** The embedded cluster's postmaster, from DATA_DIR/postgres/postmaster.pid; undefined when none runs. */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    readFileSync(`/proc/${pid}/stat`); // throws when the process is gone (a stale file after a crash)
    return pid;
  } catch {
    return undefined;
  }
}

/** Node (and its descendants) plus, on the embedded store, the postmaster's tree. */
export function serviceMemory(nodePid: number, dataDir: string): TreeMemory {
  const postmaster = postmasterPid(dataDir);
  return treeMemory(postmaster === undefined ? [nodePid] : [nodePid, postmaster]);
}

/** Samples `read` every `everyMs` while `work` runs; the highest PSS (and its reading), the root's highest RSS. */
export async function peakMemory<T>(
  read: () => TreeMemory,
  work: () => Promise<T>,
  everyMs = 250,
): Promise<{ result: T; peakPssMb: number; peakRootRssMb: number; atPeak: TreeMemory | undefined }> {
  let peakPssMb = 0;
  let peakRootRssMb = 0;
  let atPeak: TreeMemory | undefined;
  const sample = () => {
    const m = read();
    if (m.pssMb > peakPssMb) {
      peakPssMb = m.pssMb;
      atPeak = m;
    }
    peakRootRssMb = Math.max(peakRootRssMb, m.rootRssMb);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  try {
    const result = await work();
    sample();
    return { result, peakPssMb, peakRootRssMb, atPeak };
  } finally {
    clearInterval(timer);
  }
}

export const bytesToMb = (bytes: number) => bytes / MB;
