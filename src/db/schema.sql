-- The database schema after every migration, generated from the migrated test database's
-- catalogue by test/db/schema-sql.test.ts (which fails when it is not current). Do not edit: change a
-- migration, then run `npx vitest run test/db/schema-sql.test.ts -u`.

create extension pg_trgm;

create table access_tokens (
  id uuid not null,
  user_id uuid not null,
  api_key_id uuid,
  prefix text not null,
  token_hash text not null,
  scopes text[] not null,
  expires_at timestamp with time zone not null,
  revoked_at timestamp with time zone,
  refresh_hash text,
  refresh_expires_at timestamp with time zone,
  refreshed_at timestamp with time zone,
  created_at timestamp with time zone not null,
  constraint access_tokens_pkey PRIMARY KEY (id),
  constraint access_tokens_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES api_keys(id) ON DELETE CASCADE,
  constraint access_tokens_refresh_hash_key UNIQUE (refresh_hash),
  constraint access_tokens_token_hash_key UNIQUE (token_hash),
  constraint access_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX access_tokens_api_key_idx ON access_tokens USING btree (api_key_id);
CREATE INDEX access_tokens_user_idx ON access_tokens USING btree (user_id, created_at DESC, id DESC);

create table account_usage (
  user_id uuid not null,
  day date not null,
  sent_day integer not null default 0,
  received_day integer not null default 0,
  month date not null,
  sent_month integer not null default 0,
  received_month integer not null default 0,
  constraint account_usage_pkey PRIMARY KEY (user_id),
  constraint account_usage_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);

create table api_keys (
  id uuid not null,
  user_id uuid not null,
  name text not null,
  prefix text not null,
  key_hash text not null,
  scopes text[] not null,
  use_count bigint not null default 0,
  last_used_at timestamp with time zone,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  created_at timestamp with time zone not null,
  constraint api_keys_pkey PRIMARY KEY (id),
  constraint api_keys_key_hash_key UNIQUE (key_hash),
  constraint api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX api_keys_user_idx ON api_keys USING btree (user_id, created_at DESC);

create table batches (
  id uuid not null,
  user_id uuid not null,
  device_id uuid not null,
  body text not null,
  status text not null,
  recipient_count integer not null,
  recipient_preview text not null,
  segments integer not null,
  encoding text not null,
  sim_subscription_id integer,
  dispatched_count integer not null default 0,
  sent_count integer not null default 0,
  delivered_count integer not null default 0,
  failed_count integer not null default 0,
  unknown_count integer not null default 0,
  scheduled_at timestamp with time zone,
  estimated_completion_at timestamp with time zone,
  completed_at timestamp with time zone,
  error text,
  workflow_started_at timestamp with time zone,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  cancelled_at timestamp with time zone,
  priority text not null default 'normal'::text,
  ttl_seconds integer,
  encrypted boolean not null default false,
  data_port integer,
  retry_of uuid,
  constraint batches_pkey PRIMARY KEY (id),
  constraint batches_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices(id),
  constraint batches_priority_check CHECK ((priority = ANY (ARRAY['normal'::text, 'high'::text]))),
  constraint batches_retry_of_fkey FOREIGN KEY (retry_of) REFERENCES batches(id) ON DELETE SET NULL,
  constraint batches_status_check CHECK ((status = ANY (ARRAY['scheduled'::text, 'queued'::text, 'sending'::text, 'completed'::text, 'failed'::text]))),
  constraint batches_ttl_seconds_check CHECK ((ttl_seconds > 0)),
  constraint batches_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX batches_retry_of_idx ON batches USING btree (retry_of) WHERE (retry_of IS NOT NULL);
CREATE INDEX batches_search_idx ON batches USING gin (body gin_trgm_ops) WHERE (NOT encrypted);
CREATE INDEX batches_unstarted_idx ON batches USING btree (created_at) WHERE (workflow_started_at IS NULL);
CREATE INDEX batches_user_idx ON batches USING btree (user_id, created_at DESC, id DESC);

create table devices (
  id uuid not null,
  user_id uuid not null,
  name text not null,
  hardware_key text not null,
  token_hash text,
  enabled boolean not null default true,
  is_default boolean not null default false,
  online boolean not null default true,
  receive_enabled boolean not null default true,
  heartbeat_interval_minutes integer not null default 15,
  send_delay_seconds integer not null default 0,
  preferred_sim_subscription_id integer,
  sent_count integer not null default 0,
  received_count integer not null default 0,
  brand text,
  manufacturer text,
  model text,
  build_id text,
  os_version text,
  os_api_level integer,
  app_version_code integer,
  app_version_name text,
  push_token text,
  push_token_invalid_reason text,
  push_token_invalidated_at timestamp with time zone,
  sims jsonb not null default '[]'::jsonb,
  telemetry jsonb not null default '{}'::jsonb,
  last_heartbeat_at timestamp with time zone,
  last_signal_at timestamp with time zone,
  paired_at timestamp with time zone not null,
  unpaired_at timestamp with time zone,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  queue_depth integer not null default 0,
  send_delay_jitter_seconds integer not null default 0,
  max_sends_per_minute integer,
  max_sends_per_hour integer,
  send_window jsonb,
  queue_depth_high integer not null default 0,
  sending_capacity integer,
  sending_capacity_minutes integer not null default 30,
  paused_until timestamp with time zone,
  max_sends_per_day integer,
  sim_selection text not null default 'os_default'::text,
  sim_rotation bigint not null default 0,
  processing_order text not null default 'fifo'::text,
  constraint devices_pkey PRIMARY KEY (id),
  constraint devices_max_sends_per_day_check CHECK ((max_sends_per_day > 0)),
  constraint devices_max_sends_per_hour_check CHECK ((max_sends_per_hour > 0)),
  constraint devices_max_sends_per_minute_check CHECK ((max_sends_per_minute > 0)),
  constraint devices_processing_order_check CHECK ((processing_order = ANY (ARRAY['fifo'::text, 'lifo'::text]))),
  constraint devices_send_delay_jitter_seconds_check CHECK (((send_delay_jitter_seconds >= 0) AND (send_delay_jitter_seconds <= 3600))),
  constraint devices_sending_capacity_check CHECK ((sending_capacity > 0)),
  constraint devices_sending_capacity_minutes_check CHECK (((sending_capacity_minutes >= 1) AND (sending_capacity_minutes <= 1440))),
  constraint devices_sim_selection_check CHECK ((sim_selection = ANY (ARRAY['os_default'::text, 'round_robin'::text, 'random'::text]))),
  constraint devices_token_hash_key UNIQUE (token_hash),
  constraint devices_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX devices_user_default ON devices USING btree (user_id) WHERE (is_default AND (unpaired_at IS NULL));
CREATE UNIQUE INDEX devices_user_hardware_live ON devices USING btree (user_id, hardware_key) WHERE (unpaired_at IS NULL);
CREATE INDEX devices_user_idx ON devices USING btree (user_id, created_at DESC) WHERE (unpaired_at IS NULL);

create table email_codes (
  id uuid not null,
  user_id uuid not null,
  purpose text not null,
  code_hash text not null,
  attempts integer not null default 0,
  expires_at timestamp with time zone not null,
  consumed_at timestamp with time zone,
  created_at timestamp with time zone not null,
  constraint email_codes_pkey PRIMARY KEY (id),
  constraint email_codes_purpose_check CHECK ((purpose = ANY (ARRAY['verify'::text, 'reset'::text]))),
  constraint email_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX email_codes_user_idx ON email_codes USING btree (user_id, purpose, created_at DESC);

create table events (
  id uuid not null,
  user_id uuid not null,
  name text not null,
  data jsonb not null,
  message_id uuid,
  device_id uuid,
  created_at timestamp with time zone not null,
  constraint events_pkey PRIMARY KEY (id),
  constraint events_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX events_user_idx ON events USING btree (user_id, created_at DESC, id DESC);

create table idempotency_keys (
  user_id uuid not null,
  key text not null,
  request_hash text not null,
  response_status integer not null,
  response_body text not null,
  created_at timestamp with time zone not null,
  constraint idempotency_keys_pkey PRIMARY KEY (user_id, key),
  constraint idempotency_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys USING btree (created_at);

create table message_templates (
  id uuid not null,
  user_id uuid not null,
  name text not null,
  body text not null,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  constraint message_templates_pkey PRIMARY KEY (id),
  constraint message_templates_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX message_templates_name_idx ON message_templates USING btree (user_id, name);
CREATE INDEX message_templates_user_idx ON message_templates USING btree (user_id, created_at DESC, id DESC);

create table messages (
  id uuid not null,
  user_id uuid not null,
  batch_id uuid,
  device_id uuid not null,
  direction text not null,
  status text not null,
  body text not null,
  recipient text,
  sender text,
  sim_subscription_id integer,
  segments integer not null default 1,
  position integer not null default 0,
  fingerprint text,
  error_code text,
  error_message text,
  available_at timestamp with time zone,
  stale_at timestamp with time zone,
  dispatched_at timestamp with time zone,
  sent_at timestamp with time zone,
  delivered_at timestamp with time zone,
  failed_at timestamp with time zone,
  received_at timestamp with time zone,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  priority smallint not null default 0,
  held_at timestamp with time zone,
  send_id uuid,
  encrypted boolean not null default false,
  data_port integer,
  body_from_batch boolean not null default false,
  constraint messages_pkey PRIMARY KEY (id),
  constraint messages_direction_check CHECK ((direction = ANY (ARRAY['outbound'::text, 'inbound'::text]))),
  constraint messages_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'dispatched'::text, 'sent'::text, 'delivered'::text, 'failed'::text, 'unknown'::text, 'received'::text])))
);
CREATE INDEX messages_batch_idx ON messages USING btree (batch_id, "position");
CREATE INDEX messages_device_idx ON messages USING btree (device_id, created_at DESC, id DESC);
CREATE INDEX messages_dispatched_idx ON messages USING btree (device_id, dispatched_at) WHERE (dispatched_at IS NOT NULL);
CREATE UNIQUE INDEX messages_inbound_fingerprint ON messages USING btree (device_id, fingerprint) WHERE (fingerprint IS NOT NULL);
CREATE INDEX messages_inbox_idx ON messages USING btree (user_id, received_at DESC, id DESC) WHERE (direction = 'inbound'::text);
CREATE INDEX messages_leased_idx ON messages USING btree (device_id, stale_at) WHERE (status = 'dispatched'::text);
CREATE INDEX messages_outbox_idx ON messages USING btree (device_id, priority DESC, available_at, created_at, "position") WHERE ((direction = 'outbound'::text) AND (status = ANY (ARRAY['queued'::text, 'dispatched'::text])));
CREATE INDEX messages_search_idx ON messages USING gin ((((((body || ' '::text) || COALESCE(recipient, ''::text)) || ' '::text) || COALESCE(sender, ''::text))) gin_trgm_ops) WHERE ((NOT encrypted) AND (NOT body_from_batch));
CREATE UNIQUE INDEX messages_send_id_idx ON messages USING btree (send_id) WHERE (send_id IS NOT NULL);
CREATE INDEX messages_user_idx ON messages USING btree (user_id, created_at DESC, id DESC);
CREATE INDEX messages_withdrawn_idx ON messages USING btree (batch_id, error_code) WHERE ((status = 'failed'::text) AND (error_code = ANY (ARRAY['cancelled'::text, 'opted_out'::text])));

create table mms_attachments (
  id uuid not null,
  message_id uuid not null,
  user_id uuid not null,
  part_id bigint not null,
  content_type text not null,
  name text,
  size bigint not null,
  data bytea,
  not_stored text,
  created_at timestamp with time zone not null,
  constraint mms_attachments_pkey PRIMARY KEY (id),
  constraint mms_attachments_check CHECK (((data IS NULL) = (not_stored IS NOT NULL))),
  constraint mms_attachments_message_id_fkey FOREIGN KEY (message_id) REFERENCES mms_messages(message_id) ON DELETE CASCADE,
  constraint mms_attachments_message_id_part_id_key UNIQUE (message_id, part_id),
  constraint mms_attachments_not_stored_check CHECK ((not_stored = ANY (ARRAY['over_quota'::text, 'no_data'::text, 'expired'::text])))
);
CREATE INDEX mms_attachments_expiry_idx ON mms_attachments USING btree (created_at) WHERE (data IS NOT NULL);
CREATE INDEX mms_attachments_stored_idx ON mms_attachments USING btree (user_id) INCLUDE (size) WHERE (data IS NOT NULL);

create table mms_messages (
  message_id uuid not null,
  user_id uuid not null,
  subject text,
  created_at timestamp with time zone not null,
  constraint mms_messages_pkey PRIMARY KEY (message_id),
  constraint mms_messages_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE
);

create table oauth_states (
  state_hash text not null,
  nonce text not null,
  code_verifier text not null,
  created_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  constraint oauth_states_pkey PRIMARY KEY (state_hash)
);

create table opt_outs (
  id uuid not null,
  user_id uuid not null,
  phone_number text not null,
  source text not null,
  message_id uuid,
  created_at timestamp with time zone not null,
  constraint opt_outs_pkey PRIMARY KEY (id),
  constraint opt_outs_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE SET NULL,
  constraint opt_outs_source_check CHECK ((source = ANY (ARRAY['inbound'::text, 'api'::text]))),
  constraint opt_outs_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX opt_outs_number_idx ON opt_outs USING btree (user_id, phone_number);
CREATE INDEX opt_outs_user_idx ON opt_outs USING btree (user_id, created_at DESC, id DESC);

create table pairing_codes (
  id uuid not null,
  user_id uuid not null,
  code_hash text not null,
  expires_at timestamp with time zone not null,
  consumed_at timestamp with time zone,
  device_id uuid,
  created_at timestamp with time zone not null,
  selector_hash text,
  constraint pairing_codes_pkey PRIMARY KEY (id),
  constraint pairing_codes_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices(id) ON DELETE SET NULL,
  constraint pairing_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX pairing_codes_hash_idx ON pairing_codes USING btree (code_hash);
CREATE INDEX pairing_codes_selector_idx ON pairing_codes USING btree (selector_hash) WHERE (consumed_at IS NULL);
CREATE INDEX pairing_codes_user_idx ON pairing_codes USING btree (user_id, created_at DESC);

create table pairing_refusals (
  id uuid not null,
  user_id uuid not null,
  pairing_code_id uuid not null,
  reason text not null,
  attempts integer not null default 1,
  created_at timestamp with time zone not null,
  last_attempt_at timestamp with time zone not null,
  constraint pairing_refusals_pkey PRIMARY KEY (id),
  constraint pairing_refusals_pairing_code_id_fkey FOREIGN KEY (pairing_code_id) REFERENCES pairing_codes(id) ON DELETE CASCADE,
  constraint pairing_refusals_reason_check CHECK ((reason = ANY (ARRAY['wrong'::text, 'used'::text, 'expired'::text, 'rate_limited'::text, 'device_limit'::text]))),
  constraint pairing_refusals_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX pairing_refusals_code_reason ON pairing_refusals USING btree (pairing_code_id, reason);
CREATE INDEX pairing_refusals_user_idx ON pairing_refusals USING btree (user_id, created_at DESC, id DESC);

create table plans (
  id text not null,
  name text not null,
  active boolean not null default true,
  sort_order integer not null default 0,
  batch_limit integer not null,
  daily_limit integer not null,
  monthly_limit integer not null,
  device_limit integer not null,
  webhook_limit integer not null,
  monthly_price_cents integer not null,
  yearly_price_cents integer not null,
  constraint plans_pkey PRIMARY KEY (id)
);

create table rate_limit_windows (
  key text not null,
  window_start timestamp with time zone not null,
  hits integer not null default 0,
  last_hit_at timestamp with time zone not null default now(),
  constraint rate_limit_windows_pkey PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_windows_idle_idx ON rate_limit_windows USING btree (last_hit_at);

create table sessions (
  id uuid not null,
  user_id uuid not null,
  token_hash text not null,
  ip text,
  user_agent text,
  created_at timestamp with time zone not null,
  last_seen_at timestamp with time zone not null,
  expires_at timestamp with time zone not null,
  absolute_expires_at timestamp with time zone not null,
  revoked_at timestamp with time zone,
  constraint sessions_pkey PRIMARY KEY (id),
  constraint sessions_token_hash_key UNIQUE (token_hash),
  constraint sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX sessions_user_idx ON sessions USING btree (user_id, last_seen_at DESC);

create table smsgate_accounts (
  user_id uuid not null,
  signing_key text not null,
  created_at timestamp with time zone not null,
  constraint smsgate_accounts_pkey PRIMARY KEY (user_id),
  constraint smsgate_accounts_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);

create table smsgate_devices (
  device_id uuid not null,
  signing_key text not null,
  created_at timestamp with time zone not null,
  constraint smsgate_devices_pkey PRIMARY KEY (device_id),
  constraint smsgate_devices_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices(id) ON DELETE CASCADE
);

create table smsgate_ids (
  user_id uuid not null,
  kind text not null,
  ext_id text not null,
  our_id uuid not null,
  created_at timestamp with time zone not null,
  constraint smsgate_ids_pkey PRIMARY KEY (user_id, kind, ext_id),
  constraint smsgate_ids_kind_check CHECK ((kind = ANY (ARRAY['message'::text, 'webhook'::text]))),
  constraint smsgate_ids_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX smsgate_ids_our_id_idx ON smsgate_ids USING btree (our_id);

create table users (
  id uuid not null,
  email text not null,
  name text,
  avatar_url text,
  role text not null default 'owner'::text,
  password_hash text,
  google_sub text,
  plan_id text not null,
  email_verified_at timestamp with time zone,
  last_login_at timestamp with time zone,
  deletion_requested_at timestamp with time zone,
  onboarding jsonb not null default '{}'::jsonb,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  failover boolean not null default false,
  constraint users_pkey PRIMARY KEY (id),
  constraint users_plan_id_fkey FOREIGN KEY (plan_id) REFERENCES plans(id)
);
CREATE UNIQUE INDEX users_email_unique ON users USING btree (lower(email));
CREATE UNIQUE INDEX users_google_sub_unique ON users USING btree (google_sub) WHERE (google_sub IS NOT NULL);

create table webhook_attempts (
  id uuid not null,
  delivery_id uuid not null,
  webhook_id uuid not null,
  attempt_number integer not null,
  url text not null,
  ok boolean not null,
  http_status integer,
  response_excerpt text,
  error text,
  started_at timestamp with time zone not null,
  duration_ms integer not null,
  constraint webhook_attempts_pkey PRIMARY KEY (id),
  constraint webhook_attempts_delivery_id_attempt_number_key UNIQUE (delivery_id, attempt_number),
  constraint webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  constraint webhook_attempts_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE
);
CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts USING btree (webhook_id, started_at) INCLUDE (ok);

create table webhook_deliveries (
  id uuid not null,
  user_id uuid not null,
  webhook_id uuid not null,
  event_id uuid not null,
  event text not null,
  url text not null,
  message_id uuid,
  device_id uuid,
  body text not null,
  secret_version integer not null,
  status text not null,
  attempt_count integer not null default 0,
  http_status integer,
  response_excerpt text,
  error text,
  created_at timestamp with time zone not null,
  last_attempt_at timestamp with time zone,
  next_attempt_at timestamp with time zone,
  delivered_at timestamp with time zone,
  abandoned_at timestamp with time zone,
  trace_parent text,
  redelivery_of uuid,
  superseded_by uuid,
  constraint webhook_deliveries_pkey PRIMARY KEY (id),
  constraint webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES events(id) ON DELETE CASCADE,
  constraint webhook_deliveries_redelivery_of_fkey FOREIGN KEY (redelivery_of) REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
  constraint webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'retrying'::text, 'delivered'::text, 'failed'::text]))),
  constraint webhook_deliveries_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES webhook_deliveries(id) ON DELETE SET NULL,
  constraint webhook_deliveries_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE,
  constraint webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries USING btree (event_id);
CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries USING btree (webhook_id) WHERE (status = ANY (ARRAY['pending'::text, 'retrying'::text]));
CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries USING btree (webhook_id, COALESCE(next_attempt_at, created_at), id) WHERE (status = ANY (ARRAY['pending'::text, 'retrying'::text]));
CREATE INDEX webhook_deliveries_redelivery_idx ON webhook_deliveries USING btree (redelivery_of, status) WHERE (redelivery_of IS NOT NULL);
CREATE INDEX webhook_deliveries_user_idx ON webhook_deliveries USING btree (user_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries USING btree (webhook_id, created_at DESC, id DESC);

create table webhook_secrets (
  webhook_id uuid not null,
  version integer not null,
  secret text not null,
  created_at timestamp with time zone not null,
  constraint webhook_secrets_pkey PRIMARY KEY (webhook_id, version),
  constraint webhook_secrets_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks(id) ON DELETE CASCADE
);

create table webhooks (
  id uuid not null,
  user_id uuid not null,
  url text not null,
  name text,
  events text[] not null,
  enabled boolean not null default true,
  disabled_reason text,
  secret_version integer not null default 1,
  success_count bigint not null default 0,
  failure_count bigint not null default 0,
  last_attempt_at timestamp with time zone,
  last_success_at timestamp with time zone,
  last_failure_at timestamp with time zone,
  created_at timestamp with time zone not null,
  updated_at timestamp with time zone not null,
  deleted_at timestamp with time zone,
  format text not null default 'service'::text,
  device_id uuid,
  constraint webhooks_pkey PRIMARY KEY (id),
  constraint webhooks_device_id_fkey FOREIGN KEY (device_id) REFERENCES devices(id) ON DELETE CASCADE,
  constraint webhooks_format_check CHECK ((format = ANY (ARRAY['service'::text, 'smsgate'::text]))),
  constraint webhooks_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX webhooks_device_idx ON webhooks USING btree (device_id) WHERE (device_id IS NOT NULL);
CREATE INDEX webhooks_user_idx ON webhooks USING btree (user_id, created_at) WHERE (deleted_at IS NULL);

CREATE OR REPLACE FUNCTION message_parents_exist()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform 1 from users where id = new.user_id for key share;
        if not found then
          raise foreign_key_violation using constraint = 'messages_user_id_fkey',
            message = 'update on table "messages" names an account that does not exist';
        end if;
        perform 1 from devices where id = new.device_id for key share;
        if not found then
          raise foreign_key_violation using constraint = 'messages_device_id_fkey',
            message = 'update on table "messages" names a phone that does not exist';
        end if;
        if new.batch_id is not null then
          perform 1 from batches where id = new.batch_id for key share;
          if not found then
            raise foreign_key_violation using constraint = 'messages_batch_id_fkey',
              message = 'update on table "messages" names a batch that does not exist';
          end if;
        end if;
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION messages_delete_of_batch()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        delete from messages where batch_id = old.id;
        return old;
      end $function$;

CREATE OR REPLACE FUNCTION messages_delete_of_user()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        delete from messages where user_id = old.id;
        return old;
      end $function$;

CREATE OR REPLACE FUNCTION messages_keep_device()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        if exists (select 1 from messages where device_id = old.id) then
          raise foreign_key_violation using constraint = 'messages_device_id_fkey',
            message = 'delete on table "devices" would leave messages without their phone';
        end if;
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION messages_parents_exist()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      declare
        parent record;
      begin
        for parent in select distinct user_id, device_id, batch_id from added loop
          perform from users where id = parent.user_id for key share;
          if not found then
            raise foreign_key_violation using constraint = 'messages_user_id_fkey',
              message = 'insert on table "messages" names an account that does not exist';
          end if;
          perform from devices where id = parent.device_id for key share;
          if not found then
            raise foreign_key_violation using constraint = 'messages_device_id_fkey',
              message = 'insert on table "messages" names a phone that does not exist';
          end if;
          if parent.batch_id is not null then
            perform from batches where id = parent.batch_id for key share;
            if not found then
              raise foreign_key_violation using constraint = 'messages_batch_id_fkey',
                message = 'insert on table "messages" names a batch that does not exist';
            end if;
          end if;
        end loop;
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION notify_api_key_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform pg_notify('phone_gateway_api_keys', old.id::text);
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION notify_device_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform pg_notify('phone_gateway_devices', old.id::text);
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION notify_device_of_batch()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform pg_notify('phone_gateway_devices', new.device_id::text);
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION notify_device_of_itself()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform pg_notify('phone_gateway_devices', new.id::text);
        return null;
      end $function$;

CREATE OR REPLACE FUNCTION notify_devices_of_messages()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        perform pg_notify('phone_gateway_devices', device_id::text)
           from (select distinct device_id from added
                  where direction = 'outbound' and status = 'queued' and device_id is not null) as phones;
        return null;
      end $function$;

CREATE TRIGGER api_keys_notify_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_changed();
CREATE TRIGGER api_keys_notify_update AFTER UPDATE OF revoked_at, expires_at, scopes, key_hash, user_id ON api_keys FOR EACH ROW EXECUTE FUNCTION notify_api_key_changed();
CREATE TRIGGER batches_delete_messages BEFORE DELETE ON batches FOR EACH ROW EXECUTE FUNCTION messages_delete_of_batch();
CREATE TRIGGER batches_notify_device AFTER UPDATE OF status, device_id ON batches FOR EACH ROW WHEN (((new.device_id IS NOT NULL) AND (((old.status = 'scheduled'::text) AND (new.status <> 'scheduled'::text)) OR (old.device_id IS DISTINCT FROM new.device_id)))) EXECUTE FUNCTION notify_device_of_batch();
CREATE TRIGGER devices_keep_messages AFTER DELETE ON devices FOR EACH ROW EXECUTE FUNCTION messages_keep_device();
CREATE TRIGGER devices_notify_delete AFTER DELETE ON devices FOR EACH ROW EXECUTE FUNCTION notify_device_deleted();
CREATE TRIGGER devices_notify_device AFTER UPDATE OF enabled, receive_enabled, heartbeat_interval_minutes, send_delay_seconds, preferred_sim_subscription_id, unpaired_at, token_hash, send_delay_jitter_seconds, max_sends_per_minute, max_sends_per_hour, send_window, sending_capacity, sending_capacity_minutes, paused_until, max_sends_per_day, sim_selection, processing_order ON devices FOR EACH ROW WHEN ((((((((((((((((((old.enabled IS DISTINCT FROM new.enabled) OR (old.receive_enabled IS DISTINCT FROM new.receive_enabled)) OR (old.heartbeat_interval_minutes IS DISTINCT FROM new.heartbeat_interval_minutes)) OR (old.send_delay_seconds IS DISTINCT FROM new.send_delay_seconds)) OR (old.preferred_sim_subscription_id IS DISTINCT FROM new.preferred_sim_subscription_id)) OR (old.unpaired_at IS DISTINCT FROM new.unpaired_at)) OR (old.token_hash IS DISTINCT FROM new.token_hash)) OR (old.send_delay_jitter_seconds IS DISTINCT FROM new.send_delay_jitter_seconds)) OR (old.max_sends_per_minute IS DISTINCT FROM new.max_sends_per_minute)) OR (old.max_sends_per_hour IS DISTINCT FROM new.max_sends_per_hour)) OR (old.send_window IS DISTINCT FROM new.send_window)) OR (old.sending_capacity IS DISTINCT FROM new.sending_capacity)) OR (old.sending_capacity_minutes IS DISTINCT FROM new.sending_capacity_minutes)) OR (old.paused_until IS DISTINCT FROM new.paused_until)) OR (old.max_sends_per_day IS DISTINCT FROM new.max_sends_per_day)) OR (old.sim_selection IS DISTINCT FROM new.sim_selection)) OR (old.processing_order IS DISTINCT FROM new.processing_order))) EXECUTE FUNCTION notify_device_of_itself();
CREATE TRIGGER messages_notify_devices AFTER INSERT ON messages REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION notify_devices_of_messages();
CREATE TRIGGER messages_parents_insert AFTER INSERT ON messages REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION messages_parents_exist();
CREATE TRIGGER messages_parents_update AFTER UPDATE OF user_id, device_id, batch_id ON messages FOR EACH ROW WHEN (((old.user_id IS DISTINCT FROM new.user_id) OR (old.device_id IS DISTINCT FROM new.device_id) OR (old.batch_id IS DISTINCT FROM new.batch_id))) EXECUTE FUNCTION message_parents_exist();
CREATE TRIGGER users_delete_messages BEFORE DELETE ON users FOR EACH ROW EXECUTE FUNCTION messages_delete_of_user();
