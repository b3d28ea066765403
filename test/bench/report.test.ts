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
  it('counts the targets met and lists each one missed, nothing else', () => {
    const text = headline(
      [
        row('poll', 'req/s', 307.8, 0.478, '≥ 0.5 × raw node:http + pg', false),
        row('drain', 'records/s', 10884.3, 0.511, '≥ 0.5 × raw SQL, same loop', true),
        row('soak', 'errors', 0, null, '≤ 0', true),
        row('embedded', 'req/s', 115, null, null, null),
      ],
      '2026-11-23T05:45:59.092Z',
    );
    expect(text.split('\n')).toEqual([
      'Last full `npm run bench` (2026-11-23): 2 of 3 targets met (table and method: `bench/RESULTS.md`). Missed:',
      '',
      '- poll, req/s: 307.8 (0.48 ×; target ≥ 0.5 × raw node:http + pg)',
    ]);
  });

  it('says so when every target is met', () => {
    expect(headline([row('soak', 'errors', 0, null, '≤ 0', true)], '2026-11-24')).toBe(
      'Last full `npm run bench` (2026-11-24): 1 of 1 targets met (table and method: `bench/RESULTS.md`).',
    );
  });
});
