import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export interface EventStream {
  /** Writes raw SSE text; a no-op once the stream ended. */
  write(text: string): void;
  end(): void;
  /** Called once when the client goes away or the stream ends. */
  onClose(listener: () => void): void;
  closed(): boolean;
  /** Answers with the stream: call it last, once nothing before it can fail with an error body. */
  start(): void;
}

/**
 * A Server-Sent Events response: no socket timeout, no buffering by nginx, and a first comment line
 * so clients and proxies see the stream open at once. What is written before `start` is kept.
 */
export function eventStream(ctx: Context): EventStream {
  const stream = new PassThrough();
  const listeners: (() => void)[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    if (!stream.writableEnded) stream.end();
    for (const listener of listeners.splice(0)) listener();
  };
  ctx.req.on('close', close);
  ctx.res.on('close', close);
  stream.on('close', close);
  return {
    write: (text) => {
      if (!closed && !stream.writableEnded) stream.write(text);
    },
    end: close,
    onClose(listener) {
      if (closed || ctx.req.socket.destroyed) {
        close();
        listener();
      } else listeners.push(listener);
    },
    closed: () => closed,
    start() {
      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      ctx.set({
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        // nginx would otherwise hold events back in its buffer.
        'X-Accel-Buffering': 'no',
      });
      ctx.status = 200;
      ctx.body = stream;
      if (!closed) stream.write(':connected\n\n');
    },
  };
}
