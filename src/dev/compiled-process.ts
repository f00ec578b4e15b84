// The api and worker processes of the compiled build (`node dist/...`, as the image runs them), as
// `npm run cluster` and the bench's cluster start them: output kept, a graceful stop, and a wait
// until a worker polls its task queue.
import { spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { dieWithParent, keepOutput } from './processes';
import { projectRoot } from '../lib/root';

export interface ServiceProcess {
  name: string;
  pid: number | undefined;
  /** Its last lines of output, for a failure's message. */
  output(): string;
  exited: Promise<string>;
  stop(): Promise<void>;
}

/** `node <file>` with `env`, its output kept and handed to `onLine`; `exitedEarly` rejects if it exits. */
export function startCompiled(
  name: string,
  file: string,
  env: Record<string, string | undefined>,
  onLine?: (name: string, line: string) => void,
): ServiceProcess & { exitedEarly: Promise<never> } {
  const [command, args] = dieWithParent(process.execPath, [file], 'SIGKILL');
  const child = spawn(command, args, { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = keepOutput(child, onLine && ((line) => onLine(name, line)));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`could not run node: ${error.message}`));
    child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
  });
  const exitedEarly = exited.then((how) =>
    Promise.reject(new Error(`${name} exited (${how}):\n${output().split('\n').slice(-20).join('\n')}`)),
  );
  // Handled here too: once its start is judged, an exit is the supervisor's to handle.
  exitedEarly.catch(() => undefined);
  return {
    name,
    pid: child.pid,
    output,
    exited,
    exitedEarly,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGTERM: the process drains (src/lib/shutdown.ts); after 30 s it is killed.
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Until the worker process `pid` polls the workflow task queue. */
export async function polling(address: string, namespace: string, taskQueue: string, pid: number | undefined): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await waitFor(`worker ${pid} to poll ${taskQueue}`, 180_000, async () => {
      const res = await connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      return res.pollers?.some((poller) => poller.identity?.startsWith(`${pid}@`)) ? true : undefined;
    });
  } finally {
    await connection.close();
  }
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

