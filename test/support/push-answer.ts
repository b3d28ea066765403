/** A push's counts; those left out are 0. */
export type PushCounts = { processed: number; created?: number; updated?: number; skipped?: number };

/**
 * The whole answer to a push (SPEC's sync result) that wrote these counts: no errors, not a dry
 * run, no records echoed. Tests compare with `toEqual`, so a field added to the answer fails them.
 */
export function pushAnswer(counts: PushCounts) {
  return {
    success: true,
    created: 0,
    updated: 0,
    skipped: 0,
    ...counts,
    errors: [],
    dryRun: false,
    records: null,
    recordsOmitted: null,
  };
}
