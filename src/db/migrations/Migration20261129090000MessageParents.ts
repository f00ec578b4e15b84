import { Migration } from '@mikro-orm/migrations';

const KEYS = [
  { column: 'user_id', parent: 'users', constraint: 'messages_user_id_fkey', onDelete: ' on delete cascade' },
  { column: 'device_id', parent: 'devices', constraint: 'messages_device_id_fkey', onDelete: '' },
  { column: 'batch_id', parent: 'batches', constraint: 'messages_batch_id_fkey', onDelete: ' on delete cascade' },
];

export class Migration20261129090000MessageParents extends Migration {
  override async up(): Promise<void> {
    // A message's account, phone and batch are checked once per statement instead of once per row.
    // A foreign key checks each of a send's rows on its own, and four sends to one account's phone
    // make each check add to a shared lock on the same parent rows: 35-40 us of Postgres CPU per
    // message, the largest part of an accepted recipient's. The triggers below keep what the keys
    // kept: a message names rows that exist (locked `for key share`, as the keys' checks lock them,
    // so none is deleted until the message commits), an account's or a batch's deletion takes its
    // messages with it, a phone with messages is not deleted.
    for (const key of KEYS) this.addSql(`alter table messages drop constraint ${key.constraint};`);

    // After an insert: every parent the new rows name, locked once each; a count short is a parent
    // missing (or deleted by a transaction that committed first).
    this.addSql(`create function messages_parents_exist() returns trigger language plpgsql as $$
      begin
        if (select count(*) from (select 1 from users where id in (select user_id from added) for key share) l)
             <> (select count(distinct user_id) from added) then
          raise foreign_key_violation using constraint = 'messages_user_id_fkey',
            message = 'insert on table "messages" names an account that does not exist';
        end if;
        if (select count(*) from (select 1 from devices where id in (select device_id from added) for key share) l)
             <> (select count(distinct device_id) from added) then
          raise foreign_key_violation using constraint = 'messages_device_id_fkey',
            message = 'insert on table "messages" names a phone that does not exist';
        end if;
        if (select count(*) from (select 1 from batches where id in (select batch_id from added) for key share) l)
             <> (select count(distinct batch_id) from added) then
          raise foreign_key_violation using constraint = 'messages_batch_id_fkey',
            message = 'insert on table "messages" names a batch that does not exist';
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger messages_parents_insert after insert on messages
      referencing new table as added for each statement execute function messages_parents_exist();`);

    // A row that moves to another parent (a phone's failover) is checked on its own: rare, and a
    // statement trigger on every update would keep a copy of every status move's rows.
    this.addSql(`create function message_parents_exist() returns trigger language plpgsql as $$
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
      end $$;`);
    this.addSql(`create trigger messages_parents_update after update of user_id, device_id, batch_id on messages
      for each row when (old.user_id is distinct from new.user_id or old.device_id is distinct from new.device_id
                         or old.batch_id is distinct from new.batch_id)
      execute function message_parents_exist();`);

    // Before its row goes (locked by then, so no message of a send still committing is missed): an
    // account's and a batch's messages go with it, before the account's phones and batches do.
    this.addSql(`create function messages_delete_of_user() returns trigger language plpgsql as $$
      begin
        delete from messages where user_id = old.id;
        return old;
      end $$;`);
    this.addSql(`create trigger users_delete_messages before delete on users
      for each row execute function messages_delete_of_user();`);
    this.addSql(`create function messages_delete_of_batch() returns trigger language plpgsql as $$
      begin
        delete from messages where batch_id = old.id;
        return old;
      end $$;`);
    this.addSql(`create trigger batches_delete_messages before delete on batches
      for each row execute function messages_delete_of_batch();`);
    this.addSql(`create function messages_keep_device() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from messages where device_id = old.id) then
          raise foreign_key_violation using constraint = 'messages_device_id_fkey',
            message = 'delete on table "devices" would leave messages without their phone';
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger devices_keep_messages after delete on devices
      for each row execute function messages_keep_device();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger devices_keep_messages on devices;');
    this.addSql('drop function messages_keep_device();');
    this.addSql('drop trigger batches_delete_messages on batches;');
    this.addSql('drop function messages_delete_of_batch();');
    this.addSql('drop trigger users_delete_messages on users;');
    this.addSql('drop function messages_delete_of_user();');
    this.addSql('drop trigger messages_parents_update on messages;');
    this.addSql('drop function message_parents_exist();');
    this.addSql('drop trigger messages_parents_insert on messages;');
    this.addSql('drop function messages_parents_exist();');
    for (const key of KEYS) {
      this.addSql(
        `alter table messages add constraint ${key.constraint} foreign key (${key.column}) references ${key.parent}(id)${key.onDelete};`,
      );
    }
  }
}
