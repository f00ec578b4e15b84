import { Migration } from '@mikro-orm/migrations';

export class Migration20261130010000ParentProbes extends Migration {
  override async up(): Promise<void> {
    // The parents are probed by their ids whatever the tables' size: on a small table the planner
    // reads the whole heap instead, and a phone's row, rewritten by every send, fills its page with
    // versions each probe then reads.
    this.addSql('alter function messages_parents_exist() set enable_seqscan = off;');
  }

  override async down(): Promise<void> {
    this.addSql('alter function messages_parents_exist() reset enable_seqscan;');
  }
}
