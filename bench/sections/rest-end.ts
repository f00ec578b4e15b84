import { snapshot } from '../proc';
import { delay, section, record, memoryLine, type Run } from './common';

/** Memory at rest after the load. */
export async function memoryAfterLoad(run: Run): Promise<void> {
  const { components } = run;
  section('memory at rest after the load (5 s idle)');
  await delay(5000);
  const restEnd = snapshot(components, true);
  console.log(memoryLine(restEnd, components, true));
  record('rss-rest-end', {
    label: 'stack RSS at rest (after the load)',
    value: restEnd.total.rssBytes / 2 ** 20,
    unit: 'MiB',
    target: { op: '<=', value: 350 },
  });
  record('pss-rest-end', {
    label: 'stack PSS at rest (after the load)',
    value: restEnd.total.pssBytes / 2 ** 20,
    unit: 'MiB',
  });

  // ---------------------------------------------------------------------------------------------
}
