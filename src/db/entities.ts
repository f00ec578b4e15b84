import type { EntitySchema } from '@mikro-orm/postgresql';
import { EmailCode } from '../accounts/email-code.entity';
import { Session } from '../accounts/session.entity';
import { User } from '../accounts/user.entity';
import { ApiKey } from '../api-keys/api-key.entity';
import { Event } from '../events/event.entity';
import { Plan } from '../plans/plan.entity';

// Every entity of every feature, registered here so discovery needs no folder scan.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const entities: EntitySchema<any, any>[] = [Plan, User, Session, EmailCode, ApiKey, Event];
