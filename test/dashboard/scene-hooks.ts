import { afterAll, beforeAll } from 'vitest';
import { Contexts, startAppScene, type AppScene } from './browser';

/**
 * A test file's app scene (the API on Postgres, a verified account, a browser): started before the
 * file's tests, closed after them. Kept apart from browser.ts, which scripts outside vitest use too.
 */
export function appSceneHooks(options: Parameters<typeof startAppScene>[1] = {}) {
  let scene: AppScene | undefined;
  const started = (): AppScene => {
    if (!scene) throw new Error('the app scene has not started');
    return scene;
  };
  const contexts = new Contexts(() => started().browser);
  beforeAll(async () => {
    scene = await startAppScene(contexts, options);
  }, 240_000);
  afterAll(() => scene?.close());
  return { contexts, started };
}
