import type { Context } from 'koa';
import { SESSION_IDLE_MS } from './sessions.service';
import { SESSION_COOKIE } from '../http/auth';

/** The `sid` cookie: HttpOnly, SameSite=Lax, Path=/, Secure when the public URL is https. */
export function setSessionCookie(ctx: Context, token: string, secure: boolean): void {
  // Behind a TLS-terminating proxy the request itself may look like plain http.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: SESSION_IDLE_MS,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: Context, secure: boolean): void {
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: 0,
    overwrite: true,
  });
}
