import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Settings } from '../config/settings';
import type { Logger } from '../config/logger';
import type { MobileMoneyGateway } from '../integrations/mobile-money/gateway';
import type { PlacesProvider } from '../integrations/places/provider';
import type { EtaProvider, RoutingProvider } from '../integrations/routing/provider';
import type { PhotoStore } from '../integrations/storage/photo-store';
import type { CallMasking } from '../integrations/calling/masking';

/** Everything the HTTP app reaches outside itself through; tests build it with the real ones. */
export interface AppDeps {
  settings: Settings;
  orm: MikroORM;
  temporal: Client;
  logger: Logger;
  routing: RoutingProvider;
  eta: EtaProvider;
  places: PlacesProvider;
  gateways: { live: MobileMoneyGateway; test: MobileMoneyGateway };
  photos: PhotoStore;
  /** Masked calling between a rider and a job's recipients (DESIGN section 10). */
  calling: CallMasking;
  /** Validate answers against the OpenAPI document too (tests). */
  validateResponses?: boolean;
}
