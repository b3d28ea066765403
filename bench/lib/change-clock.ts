/** What the service's change clock does (src/changes/change-clock.ts), for the raw baselines. */
export const TAKE_CLOCK = (table: string) =>
  `INSERT INTO change_clocks AS c (name, stamp) VALUES ('${table}', date_trunc('milliseconds', clock_timestamp()))
   ON CONFLICT (name) DO UPDATE SET stamp = GREATEST(date_trunc('milliseconds', clock_timestamp()), c.stamp + interval '1 millisecond')
   RETURNING stamp`;
