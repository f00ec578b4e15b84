import { Migration } from '@mikro-orm/migrations';
import { PARENTS_ONCE } from './Migration20261129100000MessageParentsOnce';

// The check before, with the setting that kept its `= any` probes off whole-table reads.
const BY_INDEX = 'alter function messages_parents_exist() set enable_seqscan = off;';

export class Migration20261130050000ParentsByProbe extends Migration {
  override async up(): Promise<void> {
    // A statement's messages name one account, phone and batch as a rule: each distinct triple's
    // parents are probed by id, each probe a plan of one index scan. The one statement before set up
    // six aggregates and three arrays at every call, a tenth of a send's Postgres CPU. An equality on
    // a key is probed by its index on a table of any size, so the function needs no setting.
    this.addSql(`create or replace function messages_parents_exist() returns trigger language plpgsql as $$
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
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(PARENTS_ONCE);
    this.addSql(BY_INDEX);
  }
}
