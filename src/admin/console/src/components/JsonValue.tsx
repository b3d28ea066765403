import { useState } from 'preact/hooks';

/** Compact JSON longer than this is cut, with the full value a click away. */
const COMPACT_CHARS = 60;

/**
 * A JSON value in one line (strings keep their quotes, so "1" and 1 differ); a long one is cut
 * and opens, pretty-printed, on demand.
 */
export function JsonValue({ value }: { value: unknown }) {
  const [open, setOpen] = useState(false);
  const compact = JSON.stringify(value) ?? 'null';
  if (compact.length <= COMPACT_CHARS) return <code class="json">{compact}</code>;
  return (
    <span class="json-long">
      {open ? <pre class="json-full">{JSON.stringify(value, null, 2)}</pre> : <code class="json">{compact.slice(0, COMPACT_CHARS)}…</code>}{' '}
      <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'less' : `all ${compact.length} characters`}
      </button>
    </span>
  );
}
