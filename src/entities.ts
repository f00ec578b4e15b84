import type { EntitySchema } from '@mikro-orm/postgresql';
import { EmailCode } from './accounts/email-code.entity';
import { OAuthState } from './accounts/oauth-state.entity';
import { Session } from './accounts/session.entity';
import { User } from './accounts/user.entity';
import { ApiKey } from './api-keys/api-key.entity';
import { Device, PairingCode, PairingRefusal } from './devices/device.entity';
import { Event } from './events/event.entity';
import { Plan } from './plans/plan.entity';
import { WebhookAttempt, WebhookDelivery } from './webhooks/delivery.entity';
import { Webhook, WebhookSecret } from './webhooks/webhook.entity';

import { Batch } from './messages/batch.entity';
import { Message } from './messages/message.entity';
import { OptOut } from './opt-outs/opt-out.entity';
import { MessageTemplate } from './templates/template.entity';
import { AccessToken } from './tokens/access-token.entity';

// Every entity of every feature, registered here so discovery needs no folder scan.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- entities of every row shape share one list
export const entities: EntitySchema<any, any>[] = [Plan, User, Session, EmailCode, OAuthState, ApiKey, Event, Device, PairingCode, PairingRefusal, Webhook, WebhookSecret, WebhookDelivery, WebhookAttempt, Batch, Message, OptOut, AccessToken, MessageTemplate];
