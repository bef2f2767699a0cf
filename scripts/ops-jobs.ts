import { Client, Connection } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sendDeliveryUpdate } from '../api/temporal/delivery-updates';
import type { Settings } from '../config/settings';
import { temporalConnectionOptions } from '../config/temporal';
import * as deliveries from '../db/deliveries';
import { silentJobs } from '../db/street-watch';
import { reassignUpdate } from '../workflows/messages';

/**
 * The operator's commands for jobs on the street (`npm run ops -- jobs:attention`, `job:reassign`):
 * what needs attention is read from Postgres; a reassignment is a workflow update, so the
 * delivery's workflow stays the single writer of who holds it.
 */

/** Active jobs whose rider has sent neither a position nor a step for RIDER_SILENT_MINUTES, longest silent first. */
export async function jobsNeedingAttention(em: EntityManager, settings: Pick<Settings, 'riderSilentMinutes'>) {
  const jobs = await silentJobs(em, settings.riderSilentMinutes * 60);
  return { jobs: jobs.map((job) => ({ ...job, silent_since: new Date(job.silent_since).toISOString() })) };
}

/**
 * Hands the job to `riderId`, or offers it again near where it stands when no rider is named; its
 * status stays. Refusals come back as the API would word them (an Error whose message says why).
 */
export async function reassignJob(
  em: EntityManager,
  settings: Settings,
  deliveryId: string,
  riderId: string | null,
): Promise<{ delivery_id: string; status: string; rider_id: string | null; offered_again: boolean }> {
  const connection = await Connection.connect(temporalConnectionOptions(settings));
  try {
    const temporal = new Client({ connection, namespace: settings.temporalNamespace });
    await sendDeliveryUpdate(
      { temporal, settings },
      deliveryId,
      (handle) => handle.executeUpdate(reassignUpdate, { args: [{ riderId }] }),
      () => deliveries.statusOf(em.fork(), deliveryId),
    );
  } finally {
    await connection.close();
  }
  const status = await deliveries.statusOf(em.fork(), deliveryId);
  return { delivery_id: deliveryId, status: status ?? 'unknown', rider_id: riderId, offered_again: riderId === null };
}
