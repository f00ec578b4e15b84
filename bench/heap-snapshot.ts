// What a V8 heap snapshot is made of, without a browser: `node --import tsx bench/heap-snapshot.ts
// FILE.heapsnapshot [--top=N]`. Take one of `npm start` with NODE_OPTIONS=--heapsnapshot-signal=SIGUSR2
// and `kill -USR2 <pid>` (written to the process's folder). Prints the live size by kind of node, the
// source text V8 keeps per package (every loaded script's, for lazy compilation), and the objects
// that retain the most (dominator tree, as DevTools computes it: weak edges do not retain).
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: bench/heap-snapshot.ts FILE.heapsnapshot [--top=N]');
const top = Number(process.argv.find((arg) => arg.startsWith('--top='))?.slice(6) ?? 25);
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const meta = snap.snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const [TYPE, NAME, SIZE, EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
const [E_TYPE, E_NAME, E_TO] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const { nodes, edges, strings } = snap;
const count = nodes.length / NF;

const type = (n: number) => nodeTypes[nodes[n * NF + TYPE]];
const name = (n: number) => strings[nodes[n * NF + NAME]];
const size = (n: number) => nodes[n * NF + SIZE];
const firstEdge = new Uint32Array(count + 1);
for (let n = 0; n < count; n++) firstEdge[n + 1] = firstEdge[n] + nodes[n * NF + EDGES] * EF;
const retaining = (e: number) => !['weak', 'shortcut'].includes(edgeTypes[edges[e + E_TYPE]]);
const edgeName = (e: number) =>
  ['element', 'hidden'].includes(edgeTypes[edges[e + E_TYPE]]) ? String(edges[e + E_NAME]) : strings[edges[e + E_NAME]];

// Predecessors, and the first retainer of each node (for a readable path).
const retainers: number[][] = Array.from({ length: count }, () => []);
const via: Array<[number, string] | undefined> = new Array(count);
for (let n = 0; n < count; n++) {
  for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += EF) {
    if (!retaining(e)) continue;
    const to = edges[e + E_TO] / NF;
    retainers[to].push(n);
    via[to] ??= [n, edgeName(e)];
  }
}

// Dominators (Cooper, Harvey, Kennedy: iterate over reverse postorder until stable) from the root, node 0.
const postorder: number[] = [];
const rank = new Int32Array(count).fill(-1);
const seen = new Uint8Array(count);
const stack: Array<[number, number]> = [[0, firstEdge[0]]];
seen[0] = 1;
while (stack.length > 0) {
  const top = stack[stack.length - 1];
  const [n] = top;
  let pushed = false;
  while (top[1] < firstEdge[n + 1]) {
    const e = top[1];
    top[1] += EF;
    const to = edges[e + E_TO] / NF;
    if (retaining(e) && !seen[to]) {
      seen[to] = 1;
      stack.push([to, firstEdge[to]]);
      pushed = true;
      break;
    }
  }
  if (!pushed) {
    stack.pop();
    rank[n] = postorder.length;
    postorder.push(n);
  }
}
const idom = new Int32Array(count).fill(-1);
idom[0] = 0;
for (let changed = true; changed; ) {
  changed = false;
  for (let i = postorder.length - 2; i >= 0; i--) {
    const n = postorder[i];
    let dom = -1;
    for (const p of retainers[n]) {
      if (idom[p] < 0) continue;
      let a = p;
      let b = dom < 0 ? p : dom;
      while (a !== b) {
        while (rank[a] < rank[b]) a = idom[a];
        while (rank[b] < rank[a]) b = idom[b];
      }
      dom = a;
    }
    if (dom !== idom[n]) {
      idom[n] = dom;
      changed = true;
    }
  }
}
const retained = new Float64Array(count);
for (const n of postorder) {
  retained[n] += size(n);
  if (n !== 0) retained[idom[n]] += retained[n];
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(2).padStart(7);
const sorted = (map: Map<string, number[]>) => [...map].sort((a, b) => b[1][0] - a[1][0]).slice(0, top);
const add = (map: Map<string, number[]>, key: string, bytes: number) => {
  const sum = map.get(key) ?? [0, 0];
  map.set(key, [sum[0] + bytes, sum[1] + 1]);
};

let live = 0;
const byType = new Map<string, number[]>();
for (let n = 0; n < count; n++) {
  if (!seen[n]) continue;
  live += size(n);
  add(byType, type(n), size(n));
}
console.log(`${file}: ${count} nodes, ${mb(live).trim()} MB live\n\nMB by kind of node (count)`);
for (const [kind, [bytes, n]] of sorted(byType)) console.log(`${mb(bytes)}  ${kind} (${n})`);

// A script is a `code` node named by its path or URL, its text behind its `source` edge.
const packageOf = (script: string) => {
  const inModules = script.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (inModules) return inModules[inModules.length - 1].slice('node_modules/'.length);
  return script.startsWith('node:') ? '(node)' : `(this project) ${script.replace(/.*\/dist\//, 'dist/')}`.replace(/\/[^/]+$/, '');
};
const sources = new Map<string, number[]>();
let sourceBytes = 0;
for (let n = 0; n < count; n++) {
  if (type(n) !== 'code' || !/^(\/|node:|file:)/.test(name(n))) continue;
  for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += EF) {
    if (edgeName(e) !== 'source') continue;
    sourceBytes += size(edges[e + E_TO] / NF);
    add(sources, packageOf(name(n)), size(edges[e + E_TO] / NF));
  }
}
console.log(`\nMB of script source by package (scripts), ${mb(sourceBytes).trim()} MB in all`);
for (const [pkg, [bytes, n]] of sorted(sources)) console.log(`${mb(bytes)}  ${pkg} (${n})`);

const label = (n: number) => `${type(n)} ${name(n).slice(0, 50).replace(/\s+/g, ' ')}`;
const path = (n: number) => {
  const steps: string[] = [];
  for (let at = n, i = 0; i < 5 && via[at] && at !== 0; i++) {
    const [from, edge] = via[at]!;
    steps.push(`.${edge} of ${label(from).slice(0, 40)}`);
    at = from;
  }
  return steps.join(' ');
};
const biggest = [...Array(count).keys()]
  .filter((n) => seen[n] && type(n) !== 'synthetic')
  .sort((a, b) => retained[b] - retained[a])
  .slice(0, top);
console.log('\nMB retained (MB own): object, reached as');
for (const n of biggest) console.log(`${mb(retained[n])} (${mb(size(n)).trim()})  ${label(n)}  ${path(n)}`);
