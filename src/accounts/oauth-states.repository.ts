import type { EntityManager, RequiredEntityData } from '@mikro-orm/postgresql';
import { OAuthState } from './oauth-state.entity';

// The pending Google sign-ins (`oauth_states`), one row per state handed to a browser.

export const oauthStatesRepository = {
  byHash: (em: EntityManager, stateHash: string) => em.findOne(OAuthState, { stateHash }),

  /** Deletes the state; 1 for the one caller that deleted it, 0 for any other. */
  delete: (em: EntityManager, stateHash: string) => em.nativeDelete(OAuthState, { stateHash }),

  /** Drops the states that expired by `now` (abandoned sign-ins), then writes the new one. */
  async replaceExpired(em: EntityManager, data: RequiredEntityData<OAuthState>, now: Date): Promise<void> {
    await em.nativeDelete(OAuthState, { expiresAt: { $lte: now } });
    em.create(OAuthState, data);
    await em.flush();
  },
};
