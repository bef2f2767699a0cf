import type { Orm } from '../../db/orm';
import { createApiKey, createPartner, createRider } from '../../db/accounts';
import { createPartnerClient, type PartnerClient } from '../../clients/typescript/src';
import { setRider } from './db-riders';

let counter = 0;

/** A confirmed partner with a live key and a test key. */
export async function makePartner(orm: Orm, name = 'Test Shop') {
  counter += 1;
  const em = orm.em.fork();
  const { partnerId } = await createPartner(em, {
    email: `partner-${Date.now()}-${counter}-${Math.random().toString(36).slice(2)}@example.com`,
    businessName: name,
    confirmed: true,
  });
  const live = await createApiKey(em, { partnerId, label: 'live', mode: 'live' });
  const test = await createApiKey(em, { partnerId, label: 'test', mode: 'test' });
  return { partnerId, liveKey: live.apiKey, testKey: test.apiKey, liveKeyId: live.keyId };
}

/**
 * A partner's server calling the API with `key` through the published client
 * (clients/typescript), so the tests break when the client and the API part.
 */
export function partnerClient(baseUrl: string, key: string): PartnerClient {
  return createPartnerClient({ baseUrl, apiKey: key });
}

/** A rider near a point, online, with a token for the rider API. */
export async function makeRider(orm: Orm, at = { lat: 5.55, lng: -0.2 }, name = 'Kofi Mensah') {
  const rider = await createRider(orm.em.fork(), { name, vehicle: 'Motorbike', lat: at.lat, lng: at.lng });
  await setRider(orm, rider.riderId, { online: true });
  return rider;
}

/** A Ghana mobile number of this run's own, on the network of `prefix` (24, 20, 54…). */
export function ghanaMobile(prefix: string): string {
  return `+233${prefix}${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
}
