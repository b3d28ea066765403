import { pace as newPace, type Pace } from './pace';

/**
 * What one pass over a JSON text finds, without parsing it: the deepest nesting, and where the
 * elements of the last array member of a top-level object are (a push's `{"stocks": [...]}`), cut
 * into pieces of about PIECE_CHARS, so that a large body can be parsed piece by piece (ADR 0046).
 */
export type JsonShape = { depth: number; list: ListShape | undefined };

type ListShape = {
  /** The member's key, as written (quotes included). */
  keyStart: number;
  keyEnd: number;
  /** Positions of its `[` and `]`. */
  open: number;
  close: number;
  /** Positions of the commas between elements where one piece ends and the next begins. */
  cuts: number[];
};

/** A piece of the list parsed at once: about 0.5 ms of JSON.parse. */
const PIECE_CHARS = 64 * 1024;
/** The scan gives the event loop a turn after this many characters (about 1 ms). */
const SCAN_CHARS = 512 * 1024;
/** Smaller bodies are parsed whole: piece by piece would only cost more. */
export const PIECEWISE_MIN_CHARS = 256 * 1024;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** The shape of `text`; long texts are scanned in slices with a turn of the event loop between them. */
export async function scanJson(text: string, p: Pace = newPace('json body')): Promise<JsonShape> {
  let depth = 0;
  let max = 0;
  let inString = false;
  // The top-level value is an object: its members are at depth 1.
  const topObject = text.trimStart().charCodeAt(0) === OPEN_BRACE;
  let stringStart = -1;
  let keyStart = -1;
  let keyEnd = -1;
  let list: ListShape | undefined;
  let inList = false;
  let pieceStart = 0;
  let i = 0;
  while (i < text.length) {
    // `i` runs on across slices: an escape at a slice's end skips the first character of the next.
    if (i > 0) await p.step();
    const to = Math.min(text.length, i + SCAN_CHARS);
    for (; i < to; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) {
          inString = false;
          // The last string closed at depth 1 before a `[` is that member's key (checked when parsed).
          if (depth === 1) {
            keyStart = stringStart;
            keyEnd = i;
          }
        }
      } else if (c === QUOTE) {
        inString = true;
        stringStart = i;
      } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        max = Math.max(max, ++depth);
        if (depth === 2 && c === OPEN_BRACKET && topObject && keyStart >= 0) {
          list = { keyStart, keyEnd, open: i, close: -1, cuts: [] };
          inList = true;
          pieceStart = i;
        }
      } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
        // Closed by `}`, the list is not one: the text is invalid and will be parsed whole.
        if (depth === 2 && inList) {
          if (c === CLOSE_BRACKET) list!.close = i;
          inList = false;
        }
        depth--;
      } else if (c === COMMA && depth === 2 && inList && i - pieceStart >= PIECE_CHARS) {
        list!.cuts.push(i);
        pieceStart = i;
      }
    }
  }
  return { depth: max, list: list && list.close > 0 && list.cuts.length > 0 ? list : undefined };
}

/**
 * JSON.parse(text), the same value or the same error, but a long list (see JsonShape) is parsed
 * piece by piece with turns of the event loop between pieces. Each piece `[…]` and the rest of the
 * object (the list replaced by `[]`) must parse on their own; valid pieces joined by the commas
 * they were cut at are then valid JSON whose elements are theirs. Anything unexpected (the list
 * not the object's last member, an empty piece, an error) is parsed whole, so an error is
 * JSON.parse's own, word for word.
 */
export async function parseJsonPaced(text: string, shape: JsonShape, p: Pace = newPace('json body')): Promise<unknown> {
  const list = shape.list;
  if (text.length < PIECEWISE_MIN_CHARS || !list || !/^\s*\}\s*$/.test(text.slice(list.close + 1))) return JSON.parse(text);
  try {
    const key: unknown = JSON.parse(text.slice(list.keyStart, list.keyEnd + 1));
    const rest = JSON.parse(text.slice(0, list.open) + '[]' + text.slice(list.close + 1)) as unknown;
    // The list is the last member, so the last value its key was given (JSON.parse keeps the last).
    if (typeof key !== 'string' || !isObject(rest) || !Object.hasOwn(rest, key) || !isEmptyArray(rest[key])) return JSON.parse(text);
    const items: unknown[] = [];
    let from = list.open + 1;
    for (const cut of [...list.cuts, list.close]) {
      await p.step();
      const piece = JSON.parse(`[${text.slice(from, cut)}]`) as unknown[];
      // `[ , …` or `…, ]`: the whole text is invalid; let JSON.parse say why.
      if (piece.length === 0) return JSON.parse(text);
      for (const item of piece) items.push(item);
      from = cut + 1;
    }
    // defineProperty: a key "__proto__" is an own property in JSON.parse's result, not the prototype.
    Object.defineProperty(rest, key, { value: items, writable: true, enumerable: true, configurable: true });
    return rest;
  } catch {
    return JSON.parse(text);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmptyArray = (v: unknown) => Array.isArray(v) && v.length === 0;
