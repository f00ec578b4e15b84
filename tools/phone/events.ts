import { HttpError } from './api';

// The phone's live channel, GET /v1/device/events (Server-Sent Events), read with fetch.

export interface ServerEvent {
  event: string;
  data: string;
}

/**
 * Splits an SSE byte stream into events (the WHATWG rules the simulator needs: `event:` and `data:`
 * fields, blank line ends an event, `:` lines are comments such as heartbeats).
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n') };
        event = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }
}

/** Opens the stream; resolves once the server answered 200 with an event stream. */
export async function openEvents(server: string, token: string, signal: AbortSignal) {
  const res = await fetch(new URL('/v1/device/events', `${server.replace(/\/+$/, '')}/`), {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    signal,
  });
  if (res.status !== 200 || !res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text().catch(() => '');
    let code = 'http_error';
    try {
      code = (JSON.parse(text) as { code?: string }).code ?? code;
    } catch {
      // not the interface's error body
    }
    throw new HttpError(res.status, code, `GET /v1/device/events: ${res.status}`);
  }
  return readEvents(res.body);
}
