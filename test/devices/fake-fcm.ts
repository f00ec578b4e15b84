import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/app';

/**
 * A local FCM speaking the real protocol: the OAuth2 token endpoint (jwt-bearer grant, RS256 checked
 * against the service account's public key) and HTTP v1 messages:send (bearer checked). Registration
 * tokens starting with "dead-" are unregistered (404), "bad-" are malformed (400); `down` answers 503.
 */
export async function startFakeFcm(projectId = 'test-project') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = 'gateway@test-project.iam.gserviceaccount.com';
  const issued = new Set<string>();
  const state = {
    tokenRequests: 0,
    rejectedAssertions: 0,
    down: false,
    messages: [] as Array<{ token: string; data: Record<string, string>; bearer: string }>,
  };
  let tokenUrl = '';

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => resolve(body));
    });

  function verifyAssertion(jwt: string): boolean {
    const [header, claims, signature] = jwt.split('.');
    if (!header || !claims || !signature) return false;
    const ok = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(publicKey, Buffer.from(signature, 'base64url'));
    if (!ok) return false;
    const h = JSON.parse(Buffer.from(header, 'base64url').toString());
    const c = JSON.parse(Buffer.from(claims, 'base64url').toString());
    const now = Math.floor(Date.now() / 1000);
    return (
      h.alg === 'RS256' &&
      c.iss === clientEmail &&
      c.aud === tokenUrl &&
      c.scope === 'https://www.googleapis.com/auth/firebase.messaging' &&
      c.exp > c.iat &&
      Math.abs(c.iat - now) < 600
    );
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await read(req);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (state.down) return send(503, { error: { code: 503, status: 'UNAVAILABLE', message: 'down' } });
    if (req.method === 'POST' && req.url === '/token') {
      state.tokenRequests += 1;
      const form = new URLSearchParams(body);
      if (
        form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ||
        !verifyAssertion(form.get('assertion') ?? '')
      ) {
        state.rejectedAssertions += 1;
        return send(400, { error: 'invalid_grant' });
      }
      const token = `ya29.${randomBytes(16).toString('hex')}`;
      issued.add(token);
      return send(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    if (req.method === 'POST' && req.url === `/v1/projects/${projectId}/messages:send`) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!issued.has(bearer)) return send(401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
      const { message } = JSON.parse(body);
      state.messages.push({ token: message.token, data: message.data, bearer });
      if (message.token.startsWith('dead-')) {
        return send(404, {
          error: {
            code: 404,
            message: 'Requested entity was not found.',
            status: 'NOT_FOUND',
            details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
          },
        });
      }
      if (message.token.startsWith('bad-')) {
        return send(400, {
          error: {
            code: 400,
            message: 'The registration token is not a valid FCM registration token',
            status: 'INVALID_ARGUMENT',
            details: [
              { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' },
            ],
          },
        });
      }
      return send(200, { name: `projects/${projectId}/messages/${randomBytes(4).toString('hex')}` });
    }
    send(404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such route' } });
  };
  // A request the fake cannot handle (say, a body that is not JSON) gets a 500, as from a real server.
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tokenUrl = `${url}/token`;
  return {
    state,
    env: {
      FCM_PROJECT_ID: projectId,
      FCM_CLIENT_EMAIL: clientEmail,
      // As an environment file carries it: one line with literal \n.
      FCM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replace(/\n/g, '\\n'),
      FCM_ENDPOINT: url,
      FCM_TOKEN_URL: tokenUrl,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The test app pushing to a fake FCM of its own; close() stops both. */
export async function startAppWithFakeFcm(): Promise<{
  app: TestApp;
  fcm: Awaited<ReturnType<typeof startFakeFcm>>;
  close(): Promise<void>;
}> {
  const fcm = await startFakeFcm();
  const app = await startTestApp({ env: fcm.env }).catch(async (error) => {
    await fcm.close();
    throw error;
  });
  return {
    app,
    fcm,
    async close() {
      await app.close();
      await fcm.close();
    },
  };
}
