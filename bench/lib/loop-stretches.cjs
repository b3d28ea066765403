/**
 * Preload (`node --require bench/lib/loop-stretches.cjs`, e.g. through BENCH_NODE_ARGS) that
 * measures how long the service's event loop went without a turn: a 1 ms interval timer notes
 * each gap over 5 ms, in wall time and in the process's CPU time during it (CPU time does not
 * count the time the machine's other work took the core: on a loaded 2-core machine wall time
 * alone mostly measures the neighbours). Written as JSON to LOOP_STRETCHES_FILE at exit; each gap
 * [wall ms, CPU ms, end (epoch ms), end (monotonic µs, the clock of a --cpu-prof profile)].
 */
'use strict';
const { writeFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
const { setInterval } = require('node:timers');

const file = process.env.LOOP_STRETCHES_FILE;
if (file) {
  const gaps = [];
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const wallMs = wall - lastWall - 1;
    if (wallMs > 5) {
      const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
      gaps.push([Math.round(wallMs * 10) / 10, Math.round(cpuMs * 10) / 10, Date.now(), Number(process.hrtime.bigint() / 1000n)]);
    }
    lastWall = wall;
    lastCpu = cpu;
  }, 1);
  tick.unref();
  process.on('exit', () => writeFileSync(file, JSON.stringify({ gaps })));
}
