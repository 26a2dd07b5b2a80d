// Prints, as JSON, what apache-arrow reads from an Arrow IPC file dt64
// exported: the row count and, for each column, its type, null count and
// every value as a string (null for nulls), read from the raw buffers so
// that no 64-bit integer passes through a JavaScript double.
//
//   node arrow_ipc.mjs FILE.arrow
import { readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';

const t = tableFromIPC(readFileSync(process.argv[2]));
const out = { rows: t.numRows, columns: {} };
for (const f of t.schema.fields) {
  const col = t.getChild(f.name);
  const values = [];
  for (const d of col.data) {
    for (let i = 0; i < d.length; i++) {
      values.push(d.getValid(i) ? String(d.values[i]) : null);
    }
  }
  out.columns[f.name] = { type: String(f.type), nulls: col.nullCount, values };
}
console.log(JSON.stringify(out));
