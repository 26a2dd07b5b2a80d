// Prints, as JSON, what DuckDB reads from a Parquet file dt64 exported:
// the row count and, for each column named on the command line, its null
// count, minimum, maximum and sum of epoch values in the column's unit
// (timestamps) or of the values (numbers), all as strings so that no
// 64-bit integer passes through a JavaScript double.
//
//   node duckdb_parquet.mjs FILE.parquet UNIT COLUMN...
import { DuckDBInstance } from '@duckdb/node-api';

const [file, unit, ...columns] = process.argv.slice(2);
// Parquet has no seconds unit: a seconds column is stored in ms.
const epoch = { s: (c) => `(epoch_ms(${c}) // 1000)`, ms: (c) => `epoch_ms(${c})`, us: (c) => `epoch_us(${c})`, ns: (c) => `epoch_ns(${c})` }[unit];
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (sql) => con.runAndReadAll(sql).then((r) => r.getRowObjectsJson());
const src = `read_parquet('${file.replaceAll("'", "''")}')`;
const out = { rows: (await q(`SELECT count(*)::VARCHAR AS n FROM ${src}`))[0].n, columns: {} };
const types = Object.fromEntries((await q(`DESCRIBE SELECT * FROM ${src}`)).map((r) => [r.column_name, r.column_type]));
for (const c of columns) {
  const id = `"${c.replaceAll('"', '""')}"`;
  const v = types[c].startsWith('TIMESTAMP') ? epoch(id) : id;
  const [r] = await q(`SELECT (count(*) - count(${id}))::VARCHAR AS nulls, min(${v})::VARCHAR AS min,
    max(${v})::VARCHAR AS max, sum(${v})::VARCHAR AS sum FROM ${src}`);
  out.columns[c] = { type: types[c], ...r };
}
console.log(JSON.stringify(out));
