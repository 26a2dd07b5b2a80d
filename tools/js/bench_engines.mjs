// make bench-engines: dt64 export next to DuckDB's own Parquet writer and
// reader, in one process tree (this process runs DuckDB and starts each
// dt64 export as a child), every contender once per round, the order
// reversed every other round; medians of the rounds.
//
//   node bench_engines.mjs --dt64 BIN --wide A.zarr --long G.zarr --dir OUT [--rounds 5] [--markdown]
//
// Rows: dt64 export of the wide array (a 1-D datetime64 array) to Parquet
// and to Arrow IPC; DuckDB's COPY ... (FORMAT parquet, COMPRESSION zstd)
// of the same rows from a table it loaded from dt64's file; DuckDB's
// range query (count, min, max over a 10-day window) on both Parquet
// files; dt64 export --layout long of the gridded dataset and DuckDB's
// COPY of the same long table. dt64 runs with --no-sync, as DuckDB's COPY
// does not flush to disk either.
import { spawnSync } from 'node:child_process';
import { statSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? def : process.argv[i + 1];
};
const dt64 = arg('dt64'), wide = arg('wide'), long = arg('long'), dir = arg('dir');
const rounds = Number(arg('rounds', '5'));
const markdown = process.argv.includes('--markdown');
if (!dt64 || !wide || !long || !dir || !(rounds >= 1)) {
  console.error('usage: node bench_engines.mjs --dt64 BIN --wide A.zarr --long G.zarr --dir OUT [--rounds N] [--markdown]');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const file = (n) => join(dir, n);
const sq = (s) => `'${s.replaceAll("'", "''")}'`;
const size = (f) => statSync(f).size;
const now = () => Number(process.hrtime.bigint()) / 1e9;

// CPU seconds (user + system) of each timed run, beside its wall time:
// on a shared machine the wall time of a 2-thread run depends on the
// neighbours, its CPU time much less. A child's comes from the shell that
// waited for it (cutime and cstime of /proc/PID/stat, in clock ticks of
// 1/100 s on Linux); DuckDB's from node's own process, whose threads it
// runs in.
const cpu = { pq: [], copy: [] };
const tick = 100;
let lastCPU; // of the last exportRun or copyRun

function exportRun(src, out, ...flags) {
  const t0 = now();
  const r = spawnSync('/bin/sh', ['-c', '"$0" "$@" && exec cat /proc/$$/stat', dt64, 'export', src, out, '--overwrite', '--no-sync', '-q', ...flags], { encoding: 'utf8' });
  const t = now() - t0;
  if (r.status !== 0) throw new Error(`dt64 export ${src} ${out}: ${r.stderr || r.error}`);
  // Fields 16 and 17 (cutime, cstime), counted after the parenthesised name.
  const f = r.stdout.slice(r.stdout.lastIndexOf(')') + 2).trim().split(' ');
  lastCPU = (Number(f[13]) + Number(f[14])) / tick;
  return t;
}

const load0 = loadavg();
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson()[0];
const threads = (await one("SELECT current_setting('threads')::VARCHAR AS t")).t;
const version = (await one('SELECT version() AS v')).v;

// Files once, untimed: DuckDB's tables come from dt64's files.
const f = {
  pq: file('dt64.parquet'), ipc: file('dt64.arrow'), duck: file('duckdb.parquet'),
  longPq: file('dt64-long.parquet'), longDuck: file('duckdb-long.parquet'),
};
exportRun(wide, f.pq, '--name', 'time');
exportRun(long, f.longPq, '--layout', 'long');
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${sq(f.pq)})`);
await con.run(`CREATE TABLE tl AS SELECT * FROM read_parquet(${sq(f.longPq)})`);
const rows = Number((await one('SELECT count(*)::VARCHAR AS n FROM t')).n);
const longRows = Number((await one('SELECT count(*)::VARCHAR AS n FROM tl')).n);
// Bytes of a table's rows at their fixed widths (Arrow's, without
// validity bitmaps): the output the long layout's target is per byte of.
const widths = { TIMESTAMP: 8, TIMESTAMP_NS: 8, TIMESTAMP_MS: 8, TIMESTAMP_S: 8, DOUBLE: 8, BIGINT: 8, FLOAT: 4, INTEGER: 4, SMALLINT: 2, TINYINT: 1, BOOLEAN: 1 };
const rowBytes = async (table) => (await con.runAndReadAll(`DESCRIBE ${table}`)).getRowObjectsJson()
  .reduce((n, c) => n + (widths[c.column_type] ?? 8), 0);
const wideBytes = rows * await rowBytes('t');
const longBytes = longRows * await rowBytes('tl');
const from = (await one("SELECT strftime(min(time) + INTERVAL 100 DAY, '%Y-%m-%d %H:%M:%S') AS s FROM t")).s;
const query = (p) => `SELECT count(time) AS n, min(time) AS lo, max(time) AS hi FROM read_parquet(${sq(p)})
  WHERE time >= TIMESTAMP '${from}' AND time < TIMESTAMP '${from}' + INTERVAL 10 DAY`;
const answers = [];
const queryRun = async (p) => {
  const reps = 5;
  const t0 = now();
  for (let i = 0; i < reps; i++) answers.push(JSON.stringify(await one(query(p))));
  return (now() - t0) / reps;
};
const copyRun = async (table, out) => {
  const t0 = now();
  const c0 = process.cpuUsage();
  await con.run(`COPY ${table} TO ${sq(out)} (FORMAT parquet, COMPRESSION zstd)`);
  const c = process.cpuUsage(c0);
  lastCPU = (c.user + c.system) / 1e6;
  return now() - t0;
};

const steps = [
  ['pq', () => exportRun(wide, f.pq, '--name', 'time')],
  ['ipc', () => exportRun(wide, f.ipc, '--name', 'time')],
  ['copy', () => copyRun('t', f.duck)],
  ['qDt64', () => queryRun(f.pq)],
  ['qDuck', () => queryRun(f.duck)],
  ['long', () => exportRun(long, f.longPq, '--layout', 'long')],
  ['longCopy', () => copyRun('tl', f.longDuck)],
];
const times = Object.fromEntries(steps.map(([k]) => [k, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 ? [...steps].reverse() : steps;
  for (const [k, run] of order) {
    times[k].push(await run());
    cpu[k]?.push(lastCPU);
  }
}
if (new Set(answers).size !== 1) throw new Error(`the range query's answers differ: ${[...new Set(answers)]}`);
const load1 = loadavg();

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const s = Object.fromEntries(Object.entries(f).map(([k, p]) => [k, size(p)]));
const MiB = (b) => (b / 2 ** 20).toFixed(1);
const sec = (t) => (t < 1 ? `${(t * 1000).toFixed(1)} ms` : `${t.toFixed(2)} s`);
const mrows = (n, t) => (n / t / 1e6).toFixed(1);
// Ratios are the medians of the per-round ratios: a round's contenders
// ran next to each other, under the same load.
const ratio = (a, b, scale = 1) => median(times[a].map((t, i) => t / times[b][i] * scale));
const perByte = ratio('long', 'pq', wideBytes / longBytes);
const perFileByte = ratio('long', 'pq', s.pq / s.longPq);
const cpuRatio = median(cpu.pq.map((t, i) => t / cpu.copy[i]));
const targets = [
  ['dt64 Parquet export time ÷ DuckDB COPY time', ratio('pq', 'copy'), 0.75],
  ["dt64's Parquet file size ÷ DuckDB's", s.pq / s.duck, 1],
  ["DuckDB range query on dt64's file ÷ on its own", ratio('qDt64', 'qDuck'), 1.2],
  ["long export time per output byte (the rows' bytes) ÷ wide export's", perByte, 1.5],
];
const model = cpus()[0]?.model ?? '?';
const lines = [
  '## Engines: dt64 export next to DuckDB',
  '',
  'Generated by `make bench-engines` (`tools/js/bench_engines.mjs`): every row once per round, the order reversed every other round, medians of ' +
    `${rounds} rounds, in one process tree (node runs DuckDB and starts each \`dt64 export\`, with \`--no-sync\`, as a child).`,
  '',
  '| | |',
  '|---|---|',
  `| machine | ${model}, ${cpus().length} logical CPUs |`,
  `| load average (1 min) | ${load0[0].toFixed(1)} before, ${load1[0].toFixed(1)} after |`,
  `| DuckDB | ${version} (@duckdb/node-api), ${threads} threads |`,
  `| wide | ${wide}: ${rows} rows |`,
  `| long | ${long}: ${longRows} rows (--layout long) |`,
  '',
  '| what | median time | rows/s (M) | file MiB |',
  '|---|---|---|---|',
  `| dt64 export → Parquet | ${sec(m.pq)} (CPU ${sec(median(cpu.pq))}) | ${mrows(rows, m.pq)} | ${MiB(s.pq)} |`,
  `| DuckDB COPY (FORMAT parquet, COMPRESSION zstd) of the same rows | ${sec(m.copy)} (CPU ${sec(median(cpu.copy))}) | ${mrows(rows, m.copy)} | ${MiB(s.duck)} |`,
  `| dt64 export → Arrow IPC (uncompressed) | ${sec(m.ipc)} | ${mrows(rows, m.ipc)} | ${MiB(s.ipc)} |`,
  `| DuckDB range query (10 days) on dt64's file | ${sec(m.qDt64)} | | |`,
  `| DuckDB range query (10 days) on DuckDB's file | ${sec(m.qDuck)} | | |`,
  `| dt64 export --layout long → Parquet | ${sec(m.long)} | ${mrows(longRows, m.long)} | ${MiB(s.longPq)} |`,
  `| DuckDB COPY of the same long table | ${sec(m.longCopy)} | ${mrows(longRows, m.longCopy)} | ${MiB(s.longDuck)} |`,
  '',
  '| ratio (median of the rounds\' ratios) | measured | target | met |',
  '|---|---|---|---|',
  ...targets.map(([what, v, t]) => `| ${what} | ${v.toFixed(2)} | ≤ ${t} | ${v <= t ? 'yes' : '**no**'} |`),
  '',
  `The same ratio of CPU time (user + system, all threads): ${cpuRatio.toFixed(2)}. Wall time is what the target counts; ` +
    "a shared machine's load moves the CPU ratio much less.",
  '',
  `The rows' bytes are their fixed widths: ${MiB(wideBytes)} MiB wide, ${MiB(longBytes)} MiB long. Per byte of the files instead, ` +
    `the long export takes ${perFileByte.toFixed(2)} × the wide export's time (the wide file is delta-encoded timestamps, ${(s.pq / wideBytes).toFixed(2)} of its rows' bytes; ` +
    `the long one ${(s.longPq / longBytes).toFixed(2)}).`,
];
console.log(lines.join('\n'));
if (!markdown) {
  console.log('\nrounds (s): ' + JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.map((x) => +x.toFixed(3))]))));
}
