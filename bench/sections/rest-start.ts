import { snapshot } from '../proc';
import { delay, section, record, memoryLine, type Run } from './common';

/** Memory at rest after start. */
export async function memoryAtRest(run: Run): Promise<void> {
  const { components } = run;
  section('memory at rest (after start, 5 s idle)');
  await delay(5000);
  const restStart = snapshot(components, true);
  console.log(memoryLine(restStart, components, true));
  record('rss-rest', {
    label: 'stack RSS at rest (after start)',
    value: restStart.total.rssBytes / 2 ** 20,
    unit: 'MiB',
    target: { op: '<=', value: 350 },
  });
  record('pss-rest', {
    label: 'stack PSS at rest (after start)',
    value: restStart.total.pssBytes / 2 ** 20,
    unit: 'MiB',
  });

  // ---------------------------------------------------------------------------------------------
}
