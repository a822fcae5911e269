import { type messages, type PGlite, parse, protocol } from '@electric-sql/pglite';
import { PgliteAnswer, type RowShape, rowShape } from './pglite-answer.js';

type Serializers = Record<number, (value: unknown) => string>;

/** A statement PGlite has parsed and planned under a name: what a run of it needs besides its parameters. */
interface Prepared {
  /** The parameters' type oids, which choose each value's serializer. */
  types: number[];
  /** What its rows are made of; null for a statement that returns none. */
  shape: RowShape | null;
}

/**
 * Statements run on PGlite by name, as node-postgres runs them on PostgreSQL (`StatementNames` picks which): the
 * first run parses, describes and plans the text once; every later one sends only a Bind and an Execute of its
 * parameters, in one call into PGlite. PGlite's own `query` parses, describes and plans every statement anew in six
 * calls (docs/control-plane.md, Capacity, "Statements prepared on PGlite").
 *
 * Runs hold PGlite's locks as its `query` does: outside a transaction, no transaction may be open around it.
 */
export class PgliteStatements {
  private readonly prepared = new Map<string, Prepared>();

  constructor(
    private readonly db: PGlite,
    private readonly serializers: Serializers,
  ) {}

  /** Runs the statement named `name` (prepared at its first run here); in a transaction when `inTransaction`. */
  async run<T>(
    name: string,
    sql: string,
    params: readonly unknown[] | undefined,
    inTransaction: boolean,
  ): Promise<T[]> {
    const exclusive = <R>(fn: () => Promise<R>): Promise<R> =>
      inTransaction
        ? this.db.runExclusive(fn)
        : this.db._runExclusiveTransaction(() => this.db.runExclusive(fn));
    return exclusive(async () => {
      const statement = this.prepared.get(name) ?? (await this.prepare(name, sql));
      const bind = protocol.serialize.bind({ statement: name, values: this.values(statement, params) });
      const message = Buffer.concat([bind, protocol.serialize.execute({}), protocol.serialize.sync()]);
      const answer = new PgliteAnswer();
      await this.db.execProtocolRawStream(message, { syncToFs: !inTransaction, onRawData: answer.take });
      return answer.rows<T>(statement.shape);
    });
  }

  private async prepare(name: string, sql: string): Promise<Prepared> {
    const { messages, columns } = await prepareNamed(this.db, name, sql);
    const statement = {
      types: parse.parseDescribeStatementResults(messages),
      shape: columns ? rowShape(columns, this.db.parsers) : null,
    };
    this.prepared.set(name, statement);
    return statement;
  }

  /** Each value as PGlite's `query` sends it: by its parameter's type, null as null, bytes as they are. */
  private values(statement: Prepared, params: readonly unknown[] | undefined): (string | null)[] {
    return (params ?? []).map((value, i) => {
      if (value === null || value === undefined) return null;
      const oid = statement.types[i] ?? 0;
      const serialize = this.serializers[oid] ?? this.db.serializers[oid];
      return serialize ? serialize(value) : String(value);
    });
  }
}

/**
 * Prepares `sql` as the statement `name` on PGlite's one connection and describes it: PGlite's answer, and the
 * columns of the rows it returns (none for a statement that returns no rows).
 */
export async function prepareNamed(
  db: PGlite,
  name: string,
  sql: string,
): Promise<{ messages: messages.BackendMessage[]; columns: messages.RowDescriptionMessage | null }> {
  const message = Buffer.concat([
    protocol.serialize.parse({ name, text: sql }),
    protocol.serialize.describe({ type: 'S', name }),
    protocol.serialize.sync(),
  ]);
  const messages = await db.execProtocolStream(message, { syncToFs: false });
  const columns = messages.find((m): m is messages.RowDescriptionMessage => m.name === 'rowDescription');
  return { messages, columns: columns ?? null };
}
