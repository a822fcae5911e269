import { type messages, protocol } from '@electric-sql/pglite';

type TypeParser = (text: string, typeId: number) => unknown;

/** What a statement's rows are made of: each column's name, type oid and the parser of its type's text. */
export interface RowShape {
  names: string[];
  types: number[];
  parsers: (TypeParser | undefined)[];
}

/** The shape of the rows described by `columns`, with PGlite's parser of each column's type (`db.parsers`). */
export function rowShape(
  columns: messages.RowDescriptionMessage,
  parsers: Record<number, TypeParser>,
): RowShape {
  const types = columns.fields.map((field) => field.dataTypeID);
  return {
    names: columns.fields.map((field) => field.name),
    types,
    parsers: types.map((type) => parsers[type]),
  };
}

const DATA_ROW = 0x44; // 'D'
const ERROR = 0x45; // 'E'

/**
 * One statement's answer as PGlite writes it (`execProtocolRawStream`'s `onRawData`), made into rows here rather
 * than by PGlite's parser, which copies every field into an ArrayBuffer of its own before decoding it and builds
 * each row from an array of pairs: a statement answering 28 rows of 19 columns cost 1.0 ms that way and 0.3 ms this
 * way, PGlite's own work included (bench/pglite-answer.ts; docs/control-plane.md, Capacity). The rows are PGlite's
 * `query` rows: the same names, order, nulls and type parsers. An error comes out as PGlite's own parser makes it.
 */
export class PgliteAnswer {
  private readonly chunks: Buffer[] = [];

  /** Keeps a piece of the answer; copied, since PGlite writes the next statement's answer over its memory. */
  readonly take = (bytes: Uint8Array): void => {
    this.chunks.push(Buffer.from(bytes));
  };

  /** The answer's rows by `shape` (none without one); throws the statement's error, if it failed. */
  rows<T>(shape: RowShape | null): T[] {
    const answer = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    const rows: T[] = [];
    for (let at = 0; at < answer.length; ) {
      const end = at + 1 + answer.readInt32BE(at + 1);
      if (answer[at] === ERROR) throw databaseError(answer.subarray(at, end));
      if (answer[at] === DATA_ROW && shape) rows.push(rowOf(answer, at + 5, shape) as T);
      at = end;
    }
    return rows;
  }
}

/** A DataRow's fields from `at` (its field count) as an object, each value parsed as its column's type. */
function rowOf(answer: Buffer, at: number, shape: RowShape): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  const count = answer.readInt16BE(at);
  let next = at + 2;
  for (let i = 0; i < count; i++) {
    const length = answer.readInt32BE(next);
    next += 4;
    let value: unknown = null;
    if (length >= 0) {
      const text = answer.toString('utf8', next, next + length);
      next += length;
      const parse = shape.parsers[i];
      value = parse ? parse(text, shape.types[i] as number) : text;
    }
    setField(row, shape.names[i] as string, value);
  }
  return row;
}

/** Sets a row's field as PGlite's rows have it: a column named `__proto__` is a field too, not the prototype. */
function setField(row: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') {
    Object.defineProperty(row, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    row[name] = value;
  }
}

/** An ErrorResponse message as PGlite throws it: its protocol parser's DatabaseError. */
function databaseError(message: Buffer): Error {
  let error: Error | undefined;
  new protocol.Parser().parse(message, (parsed) => {
    error ??= parsed as unknown as Error;
  });
  return error ?? new Error('PGlite answered an error it could not read');
}
