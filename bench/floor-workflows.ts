// The workflows of `npm run bench:workflow-floor` (bench/workflow-floor.ts): the least a workflow can
// be, beside the batch workflow as the worker runs it.
export { batchWorkflow } from '../workflows/batch';

/** Returns in its first task: a start, one workflow task and a completion, nothing else. */
export async function floorWorkflow(): Promise<void> {}
