import { newId } from '../lib/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../http/errors';
import type { Clock } from '../lib/clock';
import type { CreateTemplateBody, ListTemplatesQuery, UpdateTemplateBody } from './templates.schemas';
import { templatesRepository } from './templates.repository';

export interface TemplatesDeps {
  em: () => EntityManager;
  clock: Clock;
}

// Postgres' unique_violation: another of the account's templates has the name.
const UNIQUE_VIOLATION = '23505';
const nameTaken = () => conflict('name_taken', 'Another template of this account has that name.');

async function orNameTaken<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw nameTaken();
    throw error;
  }
}

/** An account's saved message texts, offered on the dashboard's Send screen. */
export function createTemplatesService(deps: TemplatesDeps) {
  const { em, clock } = deps;
  return {
    list: (userId: string, page: ListTemplatesQuery) => templatesRepository.list(em(), userId, page),

    async get(userId: string, id: string) {
      const template = await templatesRepository.find(em(), userId, id);
      if (!template) throw notFound('template');
      return template;
    },

    create(userId: string, input: CreateTemplateBody) {
      const now = clock.now();
      return orNameTaken(() =>
        templatesRepository.insert(em(), {
          id: newId(),
          userId,
          name: input.name,
          body: input.body,
          createdAt: now,
          updatedAt: now,
        }),
      );
    },

    async update(userId: string, id: string, input: UpdateTemplateBody) {
      const updated = await orNameTaken(() =>
        templatesRepository.update(em(), userId, id, { ...input, now: clock.now() }),
      );
      if (!updated) throw notFound('template');
      return updated;
    },

    async remove(userId: string, id: string): Promise<void> {
      if (!(await templatesRepository.remove(em(), userId, id))) throw notFound('template');
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
