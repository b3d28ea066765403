import type { CombinedError } from '@urql/core';
import type { ComponentChildren } from 'preact';

/** Shared bits of the console's pages. */

export function ErrorNote({ error }: { error: CombinedError | Error | string | undefined | null }) {
  if (!error) return null;
  const message =
    typeof error === 'string'
      ? error
      : 'graphQLErrors' in error && error.graphQLErrors.length > 0
        ? error.graphQLErrors.map((e) => e.message).join('; ')
        : error.message;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export function time(value: string | null | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

export function Pager({ meta, onOffset }: { meta: { total: number; limit: number; offset: number }; onOffset: (offset: number) => void }) {
  const last = Math.min(meta.offset + meta.limit, meta.total);
  return (
    <div class="pager">
      <button type="button" disabled={meta.offset === 0} onClick={() => onOffset(Math.max(0, meta.offset - meta.limit))}>
        Previous
      </button>
      <span>
        {meta.total === 0 ? 0 : meta.offset + 1}–{last} of {meta.total}
      </span>
      <button type="button" disabled={last >= meta.total} onClick={() => onOffset(meta.offset + meta.limit)}>
        Next
      </button>
    </div>
  );
}

export function Select<T extends string>({
  label,
  value,
  options,
  onChange,
  empty,
}: {
  label: string;
  value: T | '';
  options: readonly T[];
  onChange: (value: T | '') => void;
  empty?: string;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange((e.currentTarget.value || '') as T | '')}>
        {empty !== undefined && <option value="">{empty}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The header row of a list table; an empty string is an unlabelled (actions) column. */
export function TableHead({ columns }: { columns: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => (
          <th key={i}>{c}</th>
        ))}
      </tr>
    </thead>
  );
}

/** How long ago `since` was, in the two largest units: "45 s", "3 min", "2 h 5 min", "4 d 1 h". */
export function age(since: string, now: number = Date.now()): string {
  return duration((now - Date.parse(since)) / 1000);
}

/** A span of seconds in the two largest units, as `age` says it. */
export function duration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}
