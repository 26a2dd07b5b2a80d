// Runs SQL statements in DuckDB (in memory) and prints, as JSON, the rows
// of the last one with every value as a string, or {"error": message}
// when a statement fails (the tests check failures too).
//
//   node duckdb_sql.mjs 'SELECT count(*) FROM read_parquet(''x.parquet'')' ...
import { DuckDBInstance } from '@duckdb/node-api';

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let rows = [];
try {
  for (const sql of process.argv.slice(2)) {
    rows = (await con.runAndReadAll(sql)).getRowObjectsJson();
  }
  console.log(JSON.stringify({ rows }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e.message ?? e) }));
}
