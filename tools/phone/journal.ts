import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// What a phone must remember across a crash: which messages it already sent and what became of
// them, until the service has their final outcome. The outbox hands a message out again until its
// outcome is reported, so a phone that forgot would send the text twice. Kept as an append-only file
// of JSON lines, each written before what it records counts as done (a text "goes out" after its
// line is written): a kill -9 loses nothing written. A real phone would also fsync each line.

export type Outcome = 'sent' | 'delivered' | 'failed';

export interface Report {
  id: string;
  status: Outcome;
  /** When it happened on the phone, not when the report finally got through. */
  at: string;
  extra: Record<string, string>;
}

export interface Journal {
  /** The last outcome of each message this phone handled and may be handed again. */
  readonly outcomes: Map<string, { status: Outcome; extra: Record<string, string> }>;
  /** Reports the service has not accepted yet, oldest first (what a restart sends). */
  readonly unreported: Report[];
  /** Writes an outcome down; call it before the text goes out (or the outcome counts). */
  record(report: Report): void;
  /** The service took these reports (or refused them for good): they need not be sent again. */
  accepted(reports: Report[]): void;
  /** Rewrites the file with only what is still needed, or removes it when nothing is. */
  compact(): void;
}

const key = (report: { id: string; status: Outcome }) => `${report.id} ${report.status}`;

type Line = { outcome: Report } | { accepted: Array<[string, Outcome]> };

/** The journal at `file` (created when missing), or one kept in memory only when `file` is undefined. */
export function openJournal(file: string | undefined): Journal {
  const outcomes = new Map<string, { status: Outcome; extra: Record<string, string> }>();
  const open = new Map<string, Report>();
  const apply = (line: Line) => {
    if ('outcome' in line) {
      const report = line.outcome;
      const known = outcomes.get(report.id);
      // Never backwards: delivered or failed after sent.
      if (!known || known.status === 'sent') outcomes.set(report.id, { status: report.status, extra: report.extra });
      open.set(key(report), report);
    } else {
      for (const [id, status] of line.accepted) open.delete(key({ id, status }));
    }
  };
  if (file) {
    mkdirSync(path.dirname(file), { recursive: true });
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      try {
        apply(JSON.parse(raw) as Line);
      } catch {
        // A line cut short by the kill: nothing after it was written either.
        break;
      }
    }
  }
  const write = (line: Line) => {
    if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
  };

  const journal: Journal = {
    outcomes,
    get unreported() {
      return [...open.values()];
    },
    record(report) {
      write({ outcome: report });
      apply({ outcome: report });
    },
    accepted(reports) {
      if (reports.length === 0) return;
      const line: Line = { accepted: reports.map((report) => [report.id, report.status]) };
      write(line);
      apply(line);
    },
    compact() {
      if (!file) return;
      // Still needed: a message whose last outcome is not final (delivered may follow) or not reported.
      const waiting = new Set([...open.values()].map((report) => report.id));
      const keep = [...outcomes].filter(([id, { status }]) => status === 'sent' || waiting.has(id));
      if (keep.length === 0) {
        rmSync(file, { force: true });
        return;
      }
      const lines: Line[] = [];
      for (const [id, { status, extra }] of keep) {
        const pending = [...open.values()].filter((report) => report.id === id);
        if (pending.length > 0) lines.push(...pending.map((report) => ({ outcome: report })));
        else {
          const done: Report = { id, status, at: new Date(0).toISOString(), extra };
          lines.push({ outcome: done }, { accepted: [[id, status]] });
        }
      }
      const temporary = `${file}.tmp`;
      writeFileSync(temporary, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      // A rename replaces the file whole: a kill during compaction leaves the old one or the new one.
      renameSync(temporary, file);
    },
  };
  return journal;
}
