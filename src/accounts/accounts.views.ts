import type { Session } from './session.entity';
import type { User } from './user.entity';
import { iso } from '../lib/iso';

export const userView = (user: User) => ({
  id: user.id,
  email: user.email,
  name: user.name ?? null,
  avatar_url: user.avatarUrl ?? null,
  role: user.role,
  has_password: Boolean(user.passwordHash),
  google_linked: Boolean(user.googleSub),
  email_verified_at: iso(user.emailVerifiedAt),
  last_login_at: iso(user.lastLoginAt),
  deletion_requested_at: iso(user.deletionRequestedAt),
  onboarding: user.onboarding ?? {},
  created_at: user.createdAt.toISOString(),
  updated_at: user.updatedAt.toISOString(),
});

export const sessionView = (session: Session, currentId: string) => ({
  id: session.id,
  current: session.id === currentId,
  ip: session.ip ?? null,
  user_agent: session.userAgent ?? null,
  created_at: session.createdAt.toISOString(),
  last_seen_at: session.lastSeenAt.toISOString(),
  expires_at: session.expiresAt.toISOString(),
});
