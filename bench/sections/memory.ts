import { snapshot } from '../proc';
import { delay, section, record, memoryLine, type Run } from './common';

/** Memory at rest, 5 s idle: after the start (before any load) or after the load. */
export async function memoryAtRest(run: Run, after: 'start' | 'load'): Promise<void> {
  const { components } = run;
  section(after === 'start' ? 'memory at rest (after start, 5 s idle)' : 'memory at rest after the load (5 s idle)');
  await delay(5000);
  const rest = snapshot(components, true);
  console.log(memoryLine(rest, components, true));
  const suffix = after === 'start' ? '' : '-end';
  const when = after === 'start' ? 'after start' : 'after the load';
  record(`rss-rest${suffix}`, {
    label: `stack RSS at rest (${when})`,
    value: rest.total.rssBytes / 2 ** 20,
    unit: 'MiB',
    target: { op: '<=', value: 350 },
  });
  record(`pss-rest${suffix}`, {
    label: `stack PSS at rest (${when})`,
    value: rest.total.pssBytes / 2 ** 20,
    unit: 'MiB',
  });
}
