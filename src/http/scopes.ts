/** What a credential (an API key, a token minted from one) may do: each route declares the one it needs. */
export const SCOPES = ['send', 'read', 'devices', 'webhooks'] as const;
export type Scope = (typeof SCOPES)[number];
