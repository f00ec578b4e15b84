// The fake SMSGate app's settings and how it imports the server's (capcom6/android-sms-gateway,
// app/src/main/java/me/capcom/smsgateway/…): modules/settings/SettingsService.kt update() hands each
// section of GET /settings to its Importer, and when any reports a change it shows "Settings changed
// via API, restart the app to apply changes" (NotificationsService). Each import below keeps the
// app's own comparison, null handling and storage, which decide whether a fetch is "a change".

type Stored = string | number | boolean | null | undefined;

/** KeyValueStorage: what each settings class reads back, with its default. */
export function createAppSettings() {
  const store = new Map<string, Stored>();
  const get = (key: string) => store.get(key);
  const set = (key: string, value: Stored) => {
    if (value === null || value === undefined) store.delete(key);
    else store.set(key, value);
  };
  const int = (value: unknown) => (value === null || value === undefined ? null : Math.trunc(Number(String(value))));

  // modules/messages/MessagesSettings.kt
  const messages = {
    get sendIntervalMin() {
      return (get('messages.send_interval_min') as number | undefined) ?? 0;
    },
    get sendIntervalMax() {
      return (get('messages.send_interval_max') as number | undefined) ?? null;
    },
    /** sendIntervalRange: null when max is null or min > max. */
    get sendIntervalRange(): [number, number] | null {
      const max = this.sendIntervalMax;
      return max === null || this.sendIntervalMin > max ? null : [this.sendIntervalMin, max];
    },
    get simSelectionMode() {
      return (get('messages.sim_selection_mode') as string | undefined) ?? 'OSDefault';
    },
    get processingOrder() {
      return (get('messages.processing_order') as 'LIFO' | 'FIFO' | undefined) ?? 'LIFO';
    },
    get limitPeriod() {
      return (get('messages.limit_period') as string | undefined) ?? 'Disabled';
    },
    get limitValue() {
      return (get('messages.limit_value') as number | undefined) ?? 0;
    },
    get logLifetimeDays() {
      const days = get('messages.log_lifetime_days') as number | undefined;
      return days !== undefined && days > 0 ? days : null;
    },
    import(data: Record<string, unknown>): boolean {
      return Object.entries(data)
        .map(([key, value]) => {
          switch (key) {
            case 'send_interval_min': {
              // `value?.toString()?.toFloat()?.toInt()` against an Int that defaults to 0: null is a change.
              const next = int(value);
              const changed = this.sendIntervalMin !== next;
              set('messages.send_interval_min', next);
              return changed;
            }
            case 'send_interval_max': {
              const next = int(value);
              const changed = this.sendIntervalMax !== next;
              set('messages.send_interval_max', next);
              return changed;
            }
            case 'limit_period': {
              const next = value === null || value === undefined ? 'Disabled' : String(value);
              const changed = this.limitPeriod !== next;
              set('messages.limit_period', next);
              return changed;
            }
            case 'limit_value': {
              const next = int(value);
              if (next !== null && next < 0) throw new Error('Limit value must be >= 0');
              const changed = this.limitValue !== (next ?? 0);
              set('messages.limit_value', next);
              return changed;
            }
            case 'sim_selection_mode': {
              const next = value === null || value === undefined ? 'OSDefault' : String(value);
              if (!['OSDefault', 'RoundRobin', 'Random'].includes(next)) throw new Error(`No enum constant ${next}`);
              const changed = this.simSelectionMode !== next;
              set('messages.sim_selection_mode', next);
              return changed;
            }
            case 'processing_order': {
              const next = value === null || value === undefined ? 'LIFO' : String(value);
              if (!['LIFO', 'FIFO'].includes(next)) throw new Error(`No enum constant ${next}`);
              const changed = this.processingOrder !== next;
              set('messages.processing_order', next);
              return changed;
            }
            case 'log_lifetime_days': {
              const next = int(value);
              if (next !== null && next < 1) throw new Error('Log lifetime days must be >= 1');
              const changed = this.logLifetimeDays !== next;
              set('messages.log_lifetime_days', next);
              return changed;
            }
            default:
              return false;
          }
        })
        .some(Boolean);
    },
  };

  // modules/ping/PingSettings.kt: read by PingService.start, that is at the app's start only.
  const ping = {
    get intervalSeconds() {
      const seconds = get('ping.interval_seconds') as number | undefined;
      return seconds !== undefined && seconds > 0 ? seconds : null;
    },
    import(data: Record<string, unknown>): boolean {
      return Object.entries(data)
        .map(([key, value]) => {
          if (key !== 'interval_seconds') return false;
          const parsed = int(value);
          const next = parsed !== null && parsed > 0 ? parsed : null;
          const changed = this.intervalSeconds !== next;
          set('ping.interval_seconds', next);
          return changed;
        })
        .some(Boolean);
    },
  };

  // modules/webhooks/WebhooksSettings.kt: the signing key is read for every call (PayloadSingingPlugin).
  const webhooks = {
    get internetRequired() {
      return (get('webhooks.internet_required') as boolean | undefined) ?? true;
    },
    get retryCount() {
      return (get('webhooks.retry_count') as number | undefined) ?? 15;
    },
    get signingKey() {
      // A random 8-character key is made (and kept) on first use.
      let key = get('webhooks.signing_key') as string | undefined;
      if (key === undefined) {
        key = Math.random().toString(36).slice(2, 10).padEnd(8, '0');
        set('webhooks.signing_key', key);
      }
      return key;
    },
    import(data: Record<string, unknown>): boolean {
      return Object.entries(data)
        .map(([key, value]) => {
          switch (key) {
            case 'internet_required': {
              const next = value === null || value === undefined ? null : String(value) === 'true';
              const changed = this.internetRequired !== (next ?? true);
              set('webhooks.internet_required', next);
              return changed;
            }
            case 'retry_count': {
              const next = int(value) ?? 15;
              if (next < 1) throw new Error('Retry count must be >= 1');
              const changed = this.retryCount !== next;
              set('webhooks.retry_count', next);
              return changed;
            }
            case 'signing_key': {
              const next = value === null || value === undefined ? null : String(value);
              const changed = this.signingKey !== next;
              set('webhooks.signing_key', next);
              return changed;
            }
            default:
              return false;
          }
        })
        .some(Boolean);
    },
  };

  // modules/gateway/GatewaySettings.kt: the channel is read by PushService.register, at start only.
  const gateway = {
    get serverUrl() {
      return (get('gateway.cloud_url') as string | undefined) ?? 'https://api.sms-gate.app/mobile/v1';
    },
    get privateToken() {
      return (get('gateway.private_token') as string | undefined) ?? null;
    },
    get notificationChannel() {
      return (get('gateway.notification_channel') as 'AUTO' | 'SSE_ONLY' | undefined) ?? 'AUTO';
    },
    /** What a person types in Settings → Cloud Server. */
    configure(input: { serverUrl: string; privateToken: string; notificationChannel: 'AUTO' | 'SSE_ONLY' }) {
      set('gateway.cloud_url', input.serverUrl);
      set('gateway.private_token', input.privateToken);
      set('gateway.notification_channel', input.notificationChannel);
    },
    import(data: Record<string, unknown>): boolean {
      return Object.entries(data)
        .map(([key, value]) => {
          switch (key) {
            case 'cloud_url': {
              const next = value === null || value === undefined ? 'https://api.sms-gate.app/mobile/v1' : String(value);
              if (!next.startsWith('https://')) throw new Error('url must start with https://');
              const changed = this.serverUrl !== next;
              set('gateway.cloud_url', next);
              return changed;
            }
            case 'private_token': {
              const next = value === null || value === undefined ? null : String(value);
              const changed = this.privateToken !== next;
              set('gateway.private_token', next);
              return changed;
            }
            case 'notification_channel': {
              const next = value === null || value === undefined ? 'AUTO' : String(value);
              if (!['AUTO', 'SSE_ONLY'].includes(next)) throw new Error(`No enum constant ${next}`);
              const changed = this.notificationChannel !== next;
              set('gateway.notification_channel', next);
              return changed;
            }
            default:
              return false;
          }
        })
        .some(Boolean);
    },
  };

  const sections: Record<string, { import(data: Record<string, unknown>): boolean }> = {
    gateway,
    messages,
    ping,
    webhooks,
  };
  let restartNotices = 0;

  return {
    messages,
    ping,
    webhooks,
    gateway,
    /** How often the app asked the person to restart it (a change was imported). */
    restartNotices: () => restartNotices,
    /** SettingsService.kt update(data): a failing section throws (the worker then retries). */
    update(data: Record<string, unknown>): boolean {
      if (Object.keys(data).length === 0) return false;
      const changed = Object.entries(data).map(([key, value]) => {
        const section = sections[key];
        if (!section) return false;
        try {
          return section.import(value as Record<string, unknown>);
        } catch (error) {
          throw new Error(`Failed to import ${key}: ${(error as Error).message}`);
        }
      });
      if (!changed.some(Boolean)) return false;
      restartNotices += 1;
      return true;
    },
  };
}

export type AppSettings = ReturnType<typeof createAppSettings>;
