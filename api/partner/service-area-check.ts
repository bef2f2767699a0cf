import type { LatLng } from '../../domain/geo';
import { pointsOutside, routeTooLong, type RoutePoints } from '../../domain/service-area';
import type { RouteSummary } from '../../integrations/routing/provider';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';

/**
 * Refuses (400) a quote or booking with a point outside the service area, naming each such point:
 * a mistyped coordinate would otherwise be priced, and debited, as a trip no rider can make.
 */
export function checkServiceArea({ settings }: Pick<AppDeps, 'settings'>, route: RoutePoints): void {
  const outside = pointsOutside(settings.serviceArea, route);
  if (Object.keys(outside).length > 0) {
    throw ApiError.badRequest('A point of the route is outside the service area (GET /partner/service-area gives it)', outside);
  }
}

/**
 * The route's road distance from the routing provider pricing uses, refused (400) when it is over
 * MAX_ROUTE_KM: two points inside the area may still be cities apart.
 */
export async function routeWithinLimit({ routing, settings }: Pick<AppDeps, 'routing' | 'settings'>, points: LatLng[]): Promise<RouteSummary> {
  const summary = await routing.route(points);
  const tooLong = routeTooLong(summary.distanceMeters, settings.maxRouteKm);
  if (tooLong) throw ApiError.badRequest(`The route is longer than ${settings.maxRouteKm} km by road`, tooLong);
  return summary;
}
