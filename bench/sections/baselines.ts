import { measureBaselines } from '../baseline';
import { ROUNDS, section, state, printBaselines, type Run } from './common';

/** Physical baselines on empty tables. */
export async function physicalBaselines(run: Run): Promise<void> {
  const { db, bench } = run;
  section('physical baselines (same database, empty tables)');
  state.baselines = await measureBaselines(db, { userId: bench.userId, deviceId: bench.phones.idle.id }, ROUNDS, 100);
  printBaselines(state.baselines);
  state.emptyBaselines = state.baselines;
}
