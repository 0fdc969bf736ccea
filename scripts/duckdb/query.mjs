// Runs one SQL statement in an in-memory DuckDB and prints its rows as a JSON array of objects
// (big integers as strings, as DuckDB's JSON conversion gives them). The tests of ctxc export
// read its Parquet tables with it: DuckDB, not ctxc, says what the files hold.
//   node query.mjs "SELECT ..."
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: duckdb-query SQL');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
try {
  const result = await conn.runAndReadAll(sql);
  process.stdout.write(JSON.stringify(result.getRowObjectsJson()) + '\n');
} catch (e) {
  console.error(String(e.message || e));
  process.exit(1);
}
