import { createContext, useContext } from 'react';
import type { Schemas } from '../api/client';

export interface Me {
  user: Schemas['User'];
  limits: Schemas['Limits'];
  usage: Schemas['UsageView'];
}

export interface SessionState {
  me: Me;
  /** Reads /v1/auth/me again (after verifying, renaming, …). */
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in screen');
  return session;
}
