// CPU and memory of the stack's processes, read from /proc (Linux): each component is a root pid and
// every process below it (Postgres backends, helper children), so short-lived children count too.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const PAGE_SIZE = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;

interface Stat {
  ppid: number;
  cpuMs: number;
  rssBytes: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17, rss 24.
    // cutime/cstime: children that exited and were reaped (a Postgres backend whose connection
    // closed); without them a component's CPU would drop when one of its processes ends.
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return {
      ppid: Number(fields[1]),
      cpuMs: (ticks * 1000) / TICKS_PER_SECOND,
      rssBytes: Number(fields[21]) * PAGE_SIZE,
    };
  } catch {
    return undefined; // exited meanwhile
  }
}

/** PSS and its parts: anonymous (heaps), file-backed (code, libraries) and shared memory (Postgres' buffers). */
interface Pss {
  pss: number;
  anon: number;
  shmem: number;
}

function readPss(pid: number): Pss {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  } catch {
    // exited meanwhile
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { pss: field('Pss'), anon: field('Pss_Anon'), shmem: field('Pss_Shmem') };
}

interface ProcessTable {
  stats: Map<number, Stat>;
  children: Map<number, number[]>;
}

/** One pass over /proc: every process's stat and its children. */
function readProcessTable(): ProcessTable {
  const stats = new Map<number, Stat>();
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (!stat) continue;
    stats.set(pid, stat);
    const list = children.get(stat.ppid) ?? [];
    list.push(pid);
    children.set(stat.ppid, list);
  }
  return { stats, children };
}

/** The first child of `parent` whose command name (/proc/<pid>/comm) is `command`. */
export function childNamed(parent: number | undefined, command: string): number | undefined {
  if (!parent) return undefined;
  const table = readProcessTable();
  return (table.children.get(parent) ?? []).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === command;
    } catch {
      return false;
    }
  });
}

/** Every live pid at or below `root`. */
function treeOf(table: ProcessTable, root: number): number[] {
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of table.children.get(pid) ?? []) walk(child);
  };
  if (table.stats.has(root)) walk(root);
  return out;
}

export interface Usage {
  processes: number;
  /** User + system CPU of the live processes (exited children's time is not counted). */
  cpuMs: number;
  rssBytes: number;
  pssBytes: number;
  /** PSS's anonymous and shared-memory parts (the rest is file-backed). */
  pssAnonBytes: number;
  pssShmemBytes: number;
}

/** A named part of the stack: the pid of its root process, found lazily (Postgres writes its pid file late). */
export interface Component {
  name: string;
  root: () => number | undefined;
  /** The root process alone, not the processes below it (counted as components of their own). */
  alone?: boolean;
  /** Of the processes at or below the root, only those this keeps (one Postgres serving two systems). */
  only?: (pid: number) => boolean;
}

/** The database a Postgres backend serves, from the title Postgres gives it ("postgres: user db host …"). */
export function backendDatabase(pid: number): string | undefined {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return /^postgres: \S+ (\S+) /.exec(title)?.[1];
  } catch {
    return undefined;
  }
}

function usageOf(table: ProcessTable, component: Component, withPss: boolean): Usage {
  const root = component.root();
  const usage: Usage = { processes: 0, cpuMs: 0, rssBytes: 0, pssBytes: 0, pssAnonBytes: 0, pssShmemBytes: 0 };
  if (!root) return usage;
  const pids = component.alone ? [root].filter((p) => table.stats.has(p)) : treeOf(table, root);
  for (const pid of component.only ? pids.filter(component.only) : pids) {
    const stat = table.stats.get(pid)!;
    usage.processes += 1;
    usage.cpuMs += stat.cpuMs;
    usage.rssBytes += stat.rssBytes;
    if (withPss) {
      const pss = readPss(pid);
      usage.pssBytes += pss.pss;
      usage.pssAnonBytes += pss.anon;
      usage.pssShmemBytes += pss.shmem;
    }
  }
  return usage;
}

export type Snapshot = Record<string, Usage> & { total: Usage };

/** Each component's CPU (ms) spent between two snapshots, `total` included. */
export function cpuBetween(before: Snapshot, after: Snapshot): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((name) => [name, after[name].cpuMs - (before[name]?.cpuMs ?? 0)]));
}

export function snapshot(components: Component[], withPss = false): Snapshot {
  const table = readProcessTable();
  const out = {
    total: { processes: 0, cpuMs: 0, rssBytes: 0, pssBytes: 0, pssAnonBytes: 0, pssShmemBytes: 0 },
  } as Snapshot;
  for (const component of components) {
    const usage = usageOf(table, component, withPss);
    out[component.name] = usage;
    out.total.processes += usage.processes;
    out.total.cpuMs += usage.cpuMs;
    out.total.rssBytes += usage.rssBytes;
    out.total.pssBytes += usage.pssBytes;
    out.total.pssAnonBytes += usage.pssAnonBytes;
    out.total.pssShmemBytes += usage.pssShmemBytes;
  }
  return out;
}

/**
 * Samples the stack's memory every `everyMs` until stopped; keeps the peak RSS, total and per
 * component, and the peak total PSS (read every fifth sample: smaps_rollup costs more).
 */
export function memorySampler(components: Component[], everyMs = 250) {
  const peak: Record<string, number> = {};
  let peakPss = 0;
  let tick = 0;
  const take = () => {
    const snap = snapshot(components, tick++ % 5 === 0);
    for (const [name, usage] of Object.entries(snap)) peak[name] = Math.max(peak[name] ?? 0, usage.rssBytes);
    peakPss = Math.max(peakPss, snap.total.pssBytes);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop(): { rss: Record<string, number>; pss: number } {
      clearInterval(timer);
      tick = 0;
      take();
      return { rss: peak, pss: peakPss };
    },
  };
}

/** What each component spends per second with nothing asked of it (timers, pollers, the reconciler). */
export async function idleCpuPerSecond(components: Component[], ms = 10_000): Promise<Record<string, number>> {
  const before = snapshot(components);
  const from = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = snapshot(components);
  const seconds = (performance.now() - from) / 1000;
  return Object.fromEntries(Object.entries(cpuBetween(before, after)).map(([name, cpu]) => [name, cpu / seconds]));
}

/**
 * One process's PSS by kind of mapping (/proc/<pid>/smaps), bytes, for a Go binary such as the
 * Temporal dev server: `Go heap` is the anonymous memory below the kernel's mmap area (Go reserves its
 * heap arenas at hint addresses there, randomised since Go 1.25); `1 MiB-aligned` the anonymous
 * mappings in the mmap area that start on a 1 MiB boundary, which is how the allocator under the dev
 * server's SQLite (modernc.org/memory, 1 MiB pages) maps its memory (glibc's per-thread malloc arenas
 * align so too, and hold little); `other anonymous` the rest (thread stacks, Go's runtime metadata);
 * and each file-backed mapping by its file's name (the binary, SQLite's index beside a WAL database).
 */
// x86-64 and arm64 place mmap's area (libraries, thread stacks, mmap(NULL, …)) within a terabyte or so
// below the top of the 47-bit user space.
const MMAP_AREA = 0x7e0000000000n;

export function pssByMapping(pid: number): Record<string, number> {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, number> = {};
  let kind = '';
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const [, start, inode, name] = header;
      const address = BigInt(`0x${start}`);
      if (inode !== '0' && name) kind = `file ${name.split('/').pop()}`;
      else if (address >= 0x10000000n && address < MMAP_AREA && !name) kind = 'Go heap';
      else if (address % (1n << 20n) === 0n && !name) kind = '1 MiB-aligned';
      else kind = 'other anonymous';
      continue;
    }
    const pss = /^Pss:\s+(\d+) kB/.exec(line);
    if (pss) out[kind] = (out[kind] ?? 0) + Number(pss[1]) * 1024;
  }
  return out;
}

/** The TCP ports a process listens on (/proc/<pid>/net/tcp matched against its socket descriptors). */
export function listeningPorts(pid: number): number[] {
  const sockets = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) sockets.add(inode);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local address "0100007F:1F90", state 0A is LISTEN, inode in field 10
      if (fields[3] === '0A' && sockets.has(fields[9])) ports.push(parseInt(fields[1].split(':')[1], 16));
    }
  }
  return ports;
}

/**
 * PSS of the processes at or below `root`, bytes, summed by a name for each process (`kindOf` gets its
 * command line, e.g. "postgres: autovacuum worker").
 */
export function pssByProcess(root: number, kindOf: (commandLine: string) => string): Record<string, number> {
  const table = readProcessTable();
  const out: Record<string, number> = {};
  for (const pid of treeOf(table, root)) {
    let commandLine = '';
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      continue; // exited meanwhile
    }
    const kind = kindOf(commandLine);
    out[kind] = (out[kind] ?? 0) + readPss(pid).pss;
  }
  return out;
}

/**
 * A Postgres process by its role, from the title it sets: the server's connections (one per client
 * connection, coming and going with the pools), autovacuum workers (started per table that needs it,
 * gone when done), and the server and its background processes (postmaster, checkpointer, WAL writer…).
 */
export function postgresProcessKind(commandLine: string): string {
  if (commandLine.includes('autovacuum worker')) return 'autovacuum workers';
  if (/\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(commandLine)) return 'connections';
  return 'server and background processes';
}

/** How many threads a process runs (/proc/<pid>/status), NaN when it has exited. */
export function threadCount(pid: number): number {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}
