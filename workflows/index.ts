// Every workflow the worker registers. Workflow code imports only @temporalio/workflow, types and
// pure helpers: it is bundled and replayed deterministically.
export { reconcilerWorkflow } from './reconciler';
export { deviceLivenessWorkflow } from './device-liveness';
export { webhookQueueWorkflow } from './webhook-queue';
export { batchWorkflow } from './batch';
