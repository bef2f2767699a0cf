import * as quotes from '../../db/quotes';
import type { LatLng } from '../../domain/geo';
import type { Fare } from '../../domain/pricing';
import { routeDifferences } from '../../domain/quoted-route';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import type { PartnerAuth } from '../middleware/partner-auth';

/**
 * The fare a booking that names a quote pays: the quote's, when the quote is this partner's in
 * this mode, has not expired and priced this very route. Anything else is refused (400) before
 * anything is saved or debited: a partner who named a quote expects its price, never another.
 */
export async function quotedFare({ orm }: Pick<AppDeps, 'orm'>, auth: PartnerAuth, quoteId: string, route: LatLng[]): Promise<Fare> {
  // Another partner's quote, or one of the other mode, is as unknown as one never made.
  const quote = await quotes.findForPartner(orm.em.fork(), quoteId, auth);
  if (!quote) throw ApiError.badRequest('The quote is unknown', { quote_id: 'is not a quote of this account in this mode' });
  if (quote.expired) throw ApiError.badRequest('The quote has expired: ask for a new one, or book without quote_id', { quote_id: 'has expired' });
  const differences = routeDifferences(quote.route, route);
  if (Object.keys(differences).length > 0) {
    throw ApiError.badRequest('The route is not the one quoted: ask for a quote of this route, or book without quote_id', differences);
  }
  return quote.fare;
}
