import { Migration20261121000000_initial } from './Migration20261121000000_initial';
import { Migration20261121010000_dashboard } from './Migration20261121010000_dashboard';
import { Migration20261121120000_rate_limit_counters } from './Migration20261121120000_rate_limit_counters';
import { Migration20261123000000_sms_outbox_delivery } from './Migration20261123000000_sms_outbox_delivery';
import { Migration20261124000000_idempotency_resource } from './Migration20261124000000_idempotency_resource';
import { Migration20261125000000_pending_deliveries } from './Migration20261125000000_pending_deliveries';
import { Migration20261126000000_handover_lock_in_workflow } from './Migration20261126000000_handover_lock_in_workflow';
import { Migration20261126010000_booking_claim } from './Migration20261126010000_booking_claim';
import { Migration20261126020000_debit_reconciliation } from './Migration20261126020000_debit_reconciliation';
import { Migration20261126040000_rider_tokens_calls } from './Migration20261126040000_rider_tokens_calls';
import { Migration20261126050000_contested_sign_ups } from './Migration20261126050000_contested_sign_ups';
import { Migration20261126060000_proxy_call_sessions } from './Migration20261126060000_proxy_call_sessions';
import { Migration20261126070000_rider_sign_ins } from './Migration20261126070000_rider_sign_ins';
import { Migration20261126080000_rider_phone } from './Migration20261126080000_rider_phone';
import { Migration20261127000000_rider_pings } from './Migration20261127000000_rider_pings';
import { Migration20261128120000_street_watch } from './Migration20261128120000_street_watch';
import { Migration20261128150000_unpaid_bookings } from './Migration20261128150000_unpaid_bookings';
import { Migration20261128150100_withheld_texts } from './Migration20261128150100_withheld_texts';
import { Migration20261128170000_number_pool_calls } from './Migration20261128170000_number_pool_calls';
import { Migration20261129000000_idempotency_first_finished } from './Migration20261129000000_idempotency_first_finished';
import { Migration20261129120000_quotes } from './Migration20261129120000_quotes';
import { Migration20261129130000_eta_times } from './Migration20261129130000_eta_times';

/** Every migration in order; listed so bundlers and test runners need no file globbing. */
export const migrationsList = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
  { name: 'Migration20261121010000_dashboard', class: Migration20261121010000_dashboard },
  { name: 'Migration20261121120000_rate_limit_counters', class: Migration20261121120000_rate_limit_counters },
  { name: 'Migration20261123000000_sms_outbox_delivery', class: Migration20261123000000_sms_outbox_delivery },
  { name: 'Migration20261124000000_idempotency_resource', class: Migration20261124000000_idempotency_resource },
  { name: 'Migration20261125000000_pending_deliveries', class: Migration20261125000000_pending_deliveries },
  { name: 'Migration20261126000000_handover_lock_in_workflow', class: Migration20261126000000_handover_lock_in_workflow },
  { name: 'Migration20261126010000_booking_claim', class: Migration20261126010000_booking_claim },
  { name: 'Migration20261126020000_debit_reconciliation', class: Migration20261126020000_debit_reconciliation },
  { name: 'Migration20261126040000_rider_tokens_calls', class: Migration20261126040000_rider_tokens_calls },
  { name: 'Migration20261126050000_contested_sign_ups', class: Migration20261126050000_contested_sign_ups },
  { name: 'Migration20261126060000_proxy_call_sessions', class: Migration20261126060000_proxy_call_sessions },
  { name: 'Migration20261126070000_rider_sign_ins', class: Migration20261126070000_rider_sign_ins },
  { name: 'Migration20261126080000_rider_phone', class: Migration20261126080000_rider_phone },
  { name: 'Migration20261127000000_rider_pings', class: Migration20261127000000_rider_pings },
  { name: 'Migration20261128120000_street_watch', class: Migration20261128120000_street_watch },
  { name: 'Migration20261128150000_unpaid_bookings', class: Migration20261128150000_unpaid_bookings },
  { name: 'Migration20261128150100_withheld_texts', class: Migration20261128150100_withheld_texts },
  { name: 'Migration20261128170000_number_pool_calls', class: Migration20261128170000_number_pool_calls },
  { name: 'Migration20261129000000_idempotency_first_finished', class: Migration20261129000000_idempotency_first_finished },
  { name: 'Migration20261129120000_quotes', class: Migration20261129120000_quotes },
  { name: 'Migration20261129130000_eta_times', class: Migration20261129130000_eta_times },
];
