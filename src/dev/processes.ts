import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// What `npm start` needs to find, judge and stop the child processes a previous run left behind.
// A process is only ever signalled after its command line proves it is ours.

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user (still alive, and certainly not ours to signal).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The arguments a process was started with, or undefined when it is gone (or unreadable). */
export function commandLine(pid: number): string[] | undefined {
  if (!isAlive(pid)) return undefined;
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((part) => part !== '');
  } catch {
    // No /proc (macOS): ps gives the same, space-joined, which is enough to match paths without spaces.
    try {
      const out = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
      return out ? out.split(/\s+/) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Processes whose command line passes `matches` (Linux; elsewhere an empty list). */
export function findProcesses(matches: (args: string[]) => boolean): number[] {
  if (!existsSync('/proc')) return [];
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const args = commandLine(pid);
    if (args && matches(args)) found.push(pid);
  }
  return found;
}

function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim()) || undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * The node process that started `pid` and is still running it (another `npm start`, `npm run
 * migrate`), or undefined when `pid` is an orphan whose parent died (adopted by init or a reaper).
 */
export function liveOwner(pid: number): { pid: number; command: string } | undefined {
  const ppid = parentPid(pid);
  if (!ppid || ppid === 1 || ppid === process.pid) return undefined;
  const args = commandLine(ppid);
  if (!args || !path.basename(args[0]).startsWith('node')) return undefined;
  return { pid: ppid, command: args.join(' ') };
}

/** What we would stop belongs to a process that is still running: never ours to take. */
export class InUseError extends Error {
  constructor(what: string, owner: { pid: number; command: string }) {
    super(
      `${what} belongs to a running process (pid ${owner.pid}: ${owner.command}): stop that one first, or set DATA_DIR to another folder`,
    );
    this.name = 'InUseError';
  }
}

/**
 * Sends `signal`, waits up to `graceMs` for the process to go, then kills it. Resolves once it is
 * gone. A process that is not a child of ours cannot be waited on, so its pid is polled.
 */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  const gone = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (isAlive(pid) && !isZombie(pid)) {
      if (Date.now() > deadline) return false;
      await sleep(50);
    }
    return true;
  };
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  if (await gone(graceMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await gone(5_000);
}

function isZombie(pid: number): boolean {
  try {
    // Field 3 of /proc/<pid>/stat, after the parenthesised name.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** The port cannot be listened on by us: another program holds it. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly variable: string,
    what: string,
  ) {
    super(`port ${port} (${what}) is in use by another program: stop it, or set ${variable} to a free port`);
    this.name = 'PortInUseError';
  }
}

/** Whether a listener could bind the port now (host undefined: every address, as the API listens). */
export function portIsFree(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

let setprivPath: string | null | undefined;

/**
 * The command and arguments that run `command` so that the kernel sends it `signal` when our process
 * dies, even by kill -9 (Linux, util-linux setpriv). Elsewhere the command as is: the next start
 * finds what was left and stops it.
 */
export function dieWithParent(command: string, args: string[], signal: NodeJS.Signals): [string, string[]] {
  if (setprivPath === undefined) {
    setprivPath = null;
    if (process.platform === 'linux') {
      setprivPath = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => existsSync(file)) ?? null;
    }
  }
  if (!setprivPath) return [command, args];
  return [setprivPath, ['--pdeathsig', signal.replace(/^SIG/, ''), '--', command, ...args]];
}

/**
 * Keeps the last `max` lines a child writes (stdout and stderr, which it must pipe) and hands each to
 * `onLine`; returns them joined, for the message when it fails.
 */
export function keepOutput(child: ChildProcess, onLine?: (line: string) => void, max = 200): () => string {
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > max) lines.shift();
      onLine?.(line);
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => lines.join('\n');
}
