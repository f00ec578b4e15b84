import { logMessages } from '../stack';
import { started, section, printTable, type Run } from './common';

/** Health of the run. */
export async function health(run: Run): Promise<void> {
  const { pgLog, service, components } = run;
  section('health of the run');
  console.log(
    `postgres ERROR/FATAL lines: ${pgLog.errors.length}${pgLog.errors.length ? `; first: ${pgLog.errors.slice(0, 3).join(' | ')}` : ''}`,
  );
  for (const { name } of components.slice(1)) {
    const messages = [...(logMessages.get(name) ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
    const count = messages.reduce((sum, [, n]) => sum + n, 0);
    console.log(`${name}: ${count} output lines (LOG_LEVEL=warn)`);
    for (const [message, n] of messages.slice(0, 4)) console.log(`  ${String(n).padStart(6)} × ${message}`);
  }
  const client = process.cpuUsage();
  const wall = (Date.now() - started) / 1000;
  console.log(
    `bench client CPU: ${((client.user + client.system) / 1e6).toFixed(1)} s over ${wall.toFixed(0)} s (${(((client.user + client.system) / 1e6 / wall) * 100).toFixed(0)}% of one core)`,
  );
  if (!service.alive()) throw new Error('a service process died during the run');

  printTable();
}
