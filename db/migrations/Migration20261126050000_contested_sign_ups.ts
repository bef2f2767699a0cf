import { Migration } from '@mikro-orm/migrations';

/**
 * How many sign-ups an account has had while its address was unconfirmed. Over 1 the account is
 * contested (a later sign-up replaced the pending password), and its confirmation link asks the
 * reader of the mailbox to choose the password unless opened in the browser of the latest sign-up.
 * Accounts that exist already count as signed up once.
 */
export class Migration20261126050000_contested_sign_ups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table partners add column if not exists sign_ups integer not null default 1;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table partners drop column if exists sign_ups;`);
  }
}
