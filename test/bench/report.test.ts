import { headline } from '../../bench/lib/report';
import type { Result } from '../../bench/lib/measure';

const row = (
  scenario: string,
  metric: string,
  value: number,
  ratio: number | null,
  target: string | null,
  pass: boolean | null,
): Result => ({
  scenario,
  metric,
  value,
  baseline: ratio === null ? null : value / ratio,
  ratio,
  target,
  pass,
});

describe("the README's bench headline", () => {
  it('counts the targets met and lists each one missed, a line per scenario, nothing else', () => {
    const text = headline(
      [
        row('poll', 'req/s', 307.8, 0.478, '≥ 0.5 × raw node:http + pg', false),
        row('poll', 'p99 ms', 220, null, '≤ 25', false),
        row('drain', 'records/s', 10884.3, 0.511, '≥ 0.5 × raw SQL, same loop', true),
        row('soak', 'errors', 0, null, '≤ 0', true),
        row('soak', 'idle RSS MB after start (embedded)', 305.7, null, '≤ 300', false),
        row('embedded', 'req/s', 115, null, null, null),
      ],
      '2026-11-23T05:45:59.092Z',
    );
    expect(text.split('\n')).toEqual([
      'Last full `npm run bench` (2026-11-23): 2 of 5 targets met (table and method: `bench/RESULTS.md`).',
      '',
      'Missed:',
      '',
      '- poll: req/s 307.8 (0.48 ×; target ≥ 0.5 × raw node:http + pg); p99 ms 220 (target ≤ 25)',
      '- soak: idle RSS MB after start (embedded) 305.7 (target ≤ 300)',
    ]);
  });

  it('says so when every target is met', () => {
    expect(headline([row('soak', 'errors', 0, null, '≤ 0', true)], '2026-11-24')).toBe(
      'Last full `npm run bench` (2026-11-24): 1 of 1 targets met (table and method: `bench/RESULTS.md`).',
    );
  });

  it("quotes issue 18's poll table: req/s (p99) of the service and each peer per connection count", () => {
    const rate = (label: string, c: number, value: number) =>
      row('poll-peers', `${label} req/s, ${c} connections`, value, null, null, null);
    const p99 = (label: string, c: number, value: number) =>
      row('poll-peers', `${label} p99 ms, ${c} connections`, value, null, null, null);
    const text = headline(
      [
        rate('REST', 16, 550.5),
        row('poll-peers', 'REST req/s, 16 connections', 550.5, 1.779, '≥ 1.5 × PostGraphile over a plain view', true),
        row('poll-peers', 'REST p99 ms, 16 connections (baseline: PostGraphile view)', 82, null, '≤ 60', false),
        rate('GraphQL', 16, 553.8),
        p99('GraphQL', 16, 76),
        rate("PostGraphile function running the service's statement (the fair peer)", 16, 515.4),
        p99("PostGraphile function running the service's statement (the fair peer)", 16, 57),
        rate('PostGraphile over a plain view', 16, 309.4),
        p99('PostGraphile over a plain view', 16, 104),
        rate('PostGraphile as an integrator would first write it (count(*) each poll)', 16, 191.7),
        p99('PostGraphile as an integrator would first write it (count(*) each poll)', 16, 140),
        rate('raw node:http + pg', 16, 886.8),
        p99('raw node:http + pg', 16, 51),
        row('poll-peers', 'REST CPU ms per poll (server process), 16 connections', 1.73, 2.179, '≤ 1.5 × raw node:http + pg', false),
        rate('REST', 64, 503.1),
        rate('raw node:http + pg', 64, 782.7),
      ],
      '2026-11-25',
    );
    expect(text.split('\n').slice(2, 7)).toEqual([
      "| poll, req/s (p99 ms) | REST | GraphQL | PostGraphile, the service's statement (fair peer) | PostGraphile, view (not as safe) | PostGraphile, count(*) function (unequal cost) | raw node:http + pg |",
      '|---|---:|---:|---:|---:|---:|---:|',
      '| 16 connections | 551 (82) | 554 (76) | 515 (57) | 309 (104) | 192 (140) | 887 (51) |',
      '| 64 connections | 503 |  |  |  |  | 783 |',
      '',
    ]);
  });
});
