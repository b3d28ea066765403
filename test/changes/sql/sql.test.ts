import { column, join, sql, trackedTable, trackedTableLiteral } from '../../../src/changes/sql/sql';
import type { TrackedTableName } from '../../../src/changes/tracked-entities';

describe('the quoting helpers', () => {
  it('quote a tracked table as an identifier and as a literal', () => {
    expect(trackedTable('sale_orders').text).toBe('"sale_orders"');
    expect(trackedTableLiteral('sale_orders').text).toBe("'sale_orders'");
  });

  it('refuse anything but a tracked table at run time too', () => {
    const smuggled = 'products"; DROP TABLE products; --' as TrackedTableName;
    expect(() => trackedTable(smuggled)).toThrow('Not a tracked table');
    expect(() => trackedTableLiteral("products'; --" as TrackedTableName)).toThrow('Not a tracked table');
  });

  it('quote a column name and refuse anything that is not one', () => {
    expect(column('erp_id').text).toBe('"erp_id"');
    expect(() => column('erp_id" OR true --')).toThrow('Not a column name');
  });
});

describe('statements built from fragments', () => {
  it('keep every value a parameter, numbered in order, fragments nested', () => {
    const name = "O'Brien; DROP TABLE products";
    const condition = join([sql`t.external_id = ${name}`, sql`t.revision > ${3}::int`], ' AND ');
    const statement = sql`SELECT t.id FROM ${trackedTable('products')} AS t WHERE ${condition} LIMIT ${50}::int`;
    expect(statement.text).toBe('SELECT t.id FROM "products" AS t WHERE t.external_id = $1 AND t.revision > $2::int LIMIT $3::int');
    expect(statement.values).toEqual([name, 3, 50]);
  });
});
