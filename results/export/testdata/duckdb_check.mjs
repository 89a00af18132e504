// An independent reader for the export tests: DuckDB (the @duckdb/node-api
// npm package, installed outside the repository) reads what schedfarm wrote
// and prints what it saw as one JSON object on stdout.
//
//   node duckdb_check.mjs dataset DIR        the Hive-partitioned dataset under DIR:
//                                            column types, rows per (sweep, model),
//                                            the key-value metadata of one file
//   node duckdb_check.mjs rewrite SRC DST    COPY the Parquet file SRC to DST as DuckDB
//                                            writes Parquet (timestamps in MICROS)
//   node duckdb_check.mjs sql FILE           run the SQL statements of the JSON list in FILE
//                                            in order, on one connection (views persist),
//                                            and print the rows of each (the notebook test of
//                                            cmd/schedfarm)
//
// SCHEDFARM_DUCKDB_DIR names the folder whose node_modules holds the package.
import { createRequire } from 'node:module';
import path from 'node:path';

const dir = process.env.SCHEDFARM_DUCKDB_DIR;
if (!dir) {
  console.error('SCHEDFARM_DUCKDB_DIR is not set');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(dir), 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const quote = (s) => "'" + s.replaceAll("'", "''") + "'";

const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();

const [mode, a, b] = process.argv.slice(2);
if (mode === 'dataset') {
  const src = `read_parquet(${quote(path.join(a, '**', '*.parquet'))}, hive_partitioning = true, union_by_name = true)`;
  const columns = {};
  for (const r of await rows(`DESCRIBE SELECT * FROM ${src}`)) {
    columns[r.column_name] = r.column_type;
  }
  const counts = await rows(`SELECT sweep, model, count(*)::INTEGER AS n FROM ${src} GROUP BY ALL ORDER BY ALL`);
  const files = await rows(`SELECT file FROM glob(${quote(path.join(a, '**', '*.parquet'))}) ORDER BY file`);
  const kv = {};
  for (const r of await rows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${quote(files[0].file)})`)) {
    kv[r.k] = r.v;
  }
  console.log(JSON.stringify({ columns, counts, files: files.map((f) => f.file), kv }));
} else if (mode === 'rewrite') {
  await con.run(`COPY (SELECT * FROM read_parquet(${quote(a)})) TO ${quote(b)} (FORMAT parquet)`);
  const types = {};
  for (const r of await rows(`SELECT name, type, logical_type::VARCHAR AS logical FROM parquet_schema(${quote(b)})`)) {
    types[r.name] = r.logical ?? r.type;
  }
  console.log(JSON.stringify({ types }));
} else if (mode === 'sql') {
  const fs = await import('node:fs');
  const results = [];
  for (const sql of JSON.parse(fs.readFileSync(a, 'utf8'))) {
    try {
      results.push(await rows(sql));
    } catch (e) {
      console.error(`${e.message}\nin the statement:\n${sql}`);
      process.exit(1);
    }
  }
  console.log(JSON.stringify({ results }));
} else {
  console.error('usage: duckdb_check.mjs dataset DIR | rewrite SRC DST | sql FILE');
  process.exit(2);
}
