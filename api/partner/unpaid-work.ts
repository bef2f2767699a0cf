import { countUnpaid } from '../../db/unpaid-bookings';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import type { PartnerAuth } from '../middleware/partner-auth';

/**
 * Dispatch never waits for a debit (the contract), so a partner whose wallet is empty would get
 * riders and texts for nothing, without end: once `UNPAID_BOOKINGS_LIMIT` of its deliveries in
 * this mode are unpaid, its bookings are refused with 402 before anything is saved, until one of
 * its debits succeeds, an operator lifts the hold, or the failures pass a day.
 */
export async function refuseUnpaidWork({ orm, settings }: Pick<AppDeps, 'orm' | 'settings'>, auth: PartnerAuth): Promise<void> {
  const unpaid = await countUnpaid(orm.em, auth);
  if (unpaid < settings.unpaidBookingsLimit) return;
  throw new ApiError(402, 'payment_required', `The debits of ${unpaid} recent deliveries failed: booking is paused until one is paid`, {
    unpaid_deliveries: unpaid,
    limit: settings.unpaidBookingsLimit,
    what_to_do:
      (auth.mode === 'test' ? 'In test mode, a sandbox number ending in 2222 declines every debit. ' : '') +
      'Top up the Mobile Money wallet, or register another account and make it the default; then ask us to lift the hold. ' +
      'It also lifts by itself when a pending debit succeeds, or once these failures are a day old.',
  });
}
