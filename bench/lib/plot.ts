/**
 * The soak's curves as an SVG, and as a PNG screenshot of it taken by the Chromium the console's
 * end-to-end test uses (CHROMIUM_PATH, default /usr/bin/chromium): no native module, nothing
 * loaded from another host. Without Chromium only the SVG is written.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

type Sample = { minute: number; dataDirMb: number; walMb: number; pssMb: number; rssMb: number };
type Series = { label: string; samples: Sample[] };
type Line = { label: string; colour: string; values: Array<[number, number]> };

const WIDTH = 900;
const PANEL_HEIGHT = 260;
const MARGIN = { left: 70, right: 230, top: 40, bottom: 40 };

function panel(title: string, unit: string, lines: Line[], top: number, limits: Array<{ value: number; label: string }> = []): string {
  const xs = lines.flatMap((l) => l.values.map(([x]) => x));
  const ys = [...lines.flatMap((l) => l.values.map(([, y]) => y)), ...limits.map((l) => l.value)];
  const xMax = Math.max(1, ...xs);
  const yMax = Math.max(1, ...ys) * 1.1;
  const w = WIDTH - MARGIN.left - MARGIN.right;
  const h = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (v: number) => MARGIN.left + (v / xMax) * w;
  const y = (v: number) => top + MARGIN.top + h - (v / yMax) * h;
  const ticks = (max: number, n: number) => Array.from({ length: n + 1 }, (_, i) => (max * i) / n);
  const parts = [
    `<text x="${MARGIN.left}" y="${top + 24}" font-size="16" font-weight="bold">${title}</text>`,
    `<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${w}" height="${h}" fill="none" stroke="#999"/>`,
    ...ticks(yMax, 4).map(
      (v) =>
        `<line x1="${MARGIN.left}" x2="${MARGIN.left + w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${MARGIN.left - 8}" y="${y(v) + 4}" font-size="12" text-anchor="end">${v.toFixed(0)}</text>`,
    ),
    ...ticks(xMax, 5).map(
      (v) => `<text x="${x(v)}" y="${top + MARGIN.top + h + 18}" font-size="12" text-anchor="middle">${v.toFixed(1)}</text>`,
    ),
    `<text x="${MARGIN.left + w / 2}" y="${top + PANEL_HEIGHT - 4}" font-size="12" text-anchor="middle">minutes</text>`,
    `<text x="16" y="${top + MARGIN.top + h / 2}" font-size="12" transform="rotate(-90 16 ${top + MARGIN.top + h / 2})" text-anchor="middle">${unit}</text>`,
    ...limits.map(
      (l) =>
        `<line x1="${MARGIN.left}" x2="${MARGIN.left + w}" y1="${y(l.value)}" y2="${y(l.value)}" stroke="#c00" stroke-dasharray="6 4"/><text x="${MARGIN.left + 6}" y="${y(l.value) - 4}" font-size="12" fill="#c00">${l.label}</text>`,
    ),
    ...lines.map(
      (l, i) =>
        `<polyline fill="none" stroke="${l.colour}" stroke-width="2" points="${l.values.map(([a, b]) => `${x(a).toFixed(1)},${y(b).toFixed(1)}`).join(' ')}"/>` +
        `<text x="${MARGIN.left + w + 8}" y="${top + MARGIN.top + 14 + i * 18}" font-size="12" fill="${l.colour}">${l.label}</text>`,
    ),
  ];
  return parts.join('\n');
}

const COLOURS: Array<[string, string]> = [
  ['#1f77b4', '#aec7e8'],
  ['#d62728', '#ff9896'],
];

/** Two panels: each build's DATA_DIR and WAL; each build's PSS (Node + cluster) and Node RSS, with the issue 29 targets. */
export function soakSvg(all: Series[], caption: string): string {
  const series = (samples: Sample[], pick: (s: Sample) => number) => samples.map((s) => [s.minute, pick(s)] as [number, number]);
  const height = 2 * PANEL_HEIGHT + 40;
  const colour = (i: number, k: 0 | 1): string => COLOURS[i % COLOURS.length]![k];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    panel(
      'Data directory on disk',
      'MB',
      all.flatMap((s, i) => [
        { label: `${s.label}: DATA_DIR`, colour: colour(i, 0), values: series(s.samples, (x) => x.dataDirMb) },
        { label: `${s.label}: WAL`, colour: colour(i, 1), values: series(s.samples, (x) => x.walMb) },
      ]),
      0,
    ),
    panel(
      'Service memory',
      'MB',
      all.flatMap((s, i) => [
        { label: `${s.label}: PSS, all processes`, colour: colour(i, 0), values: series(s.samples, (x) => x.pssMb) },
        { label: `${s.label}: Node RSS`, colour: colour(i, 1), values: series(s.samples, (x) => x.rssMb) },
      ]),
      PANEL_HEIGHT,
      [
        { value: 350, label: 'peak target 350' },
        { value: 230, label: 'idle target 230' },
      ],
    ),
    `<text x="${MARGIN.left}" y="${height - 10}" font-size="12" fill="#555">${caption}</text>`,
    '</svg>',
  ].join('\n');
}

export async function renderPlot(all: Series[], summary: { date: string; minutes: number; rate: number }, dir: string): Promise<void> {
  const svg = soakSvg(all, `Soak of ${summary.date}: ${summary.minutes} min at ${summary.rate}× the rate of issue 20 (bench/soak.json)`);
  writeFileSync(path.join(dir, 'soak.svg'), svg);
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    console.warn(`no Chromium at ${executablePath}: wrote bench/soak.svg only (apt-get install chromium for the PNG)`);
    return;
  }
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 2 * PANEL_HEIGHT + 40 } });
    await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
    await page.screenshot({ path: path.join(dir, 'soak.png'), omitBackground: false });
  } finally {
    await browser.close();
  }
}
