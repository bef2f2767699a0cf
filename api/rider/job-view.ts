import * as riders from '../../db/riders';
import type { RiderJobView } from '../../db/riders';
import { ACTIVE_FOR_RIDER, FINAL_DROP, type DeliveryStatus } from '../../domain/lifecycle';
import type { Response } from 'express';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { endJobCalls, openJobCall } from '../masked-calls';
import type { ServerTiming } from '../server-timing';

type MaskedCall = { via: string; expires_at: string };

/**
 * The job as the rider app shows it: the delivery and its additional stops, each recipient with
 * a masked number to call (`call`) while the job is active, never their own number.
 */
export function createJobView(deps: Pick<AppDeps, 'orm' | 'calling' | 'logger'>) {
  return async function jobView(deliveryId: string, riderId: string): Promise<RiderJobView> {
    const found = await riders.jobView(deps.orm.em, deliveryId);
    if (!found) throw ApiError.notFound('Unknown delivery');
    const { job, recipients, riderPhone } = found;
    const calls = new Map<number, MaskedCall | null>();
    if (ACTIVE_FOR_RIDER.includes(job.status as DeliveryStatus)) {
      // Every recipient's session at once: the rider app reads its job every few seconds.
      const sessions = await Promise.all(
        recipients.map((recipient) =>
          openJobCall(deps, { jobId: deliveryId, stopIndex: recipient.index, riderId, riderPhone, recipientPhone: recipient.phone }),
        ),
      );
      sessions.forEach((session, i) => {
        if (session) calls.set(recipients[i]!.index, { via: session.proxyNumber, expires_at: session.expiresAt.toISOString() });
      });
    } else {
      // The job is over (or not yet the rider's): whatever was handed out stops bridging now.
      await endJobCalls(deps, deliveryId);
    }
    return {
      ...job,
      call: calls.get(FINAL_DROP) ?? null,
      stops: job.stops.map((stop) => ({ ...stop, call: calls.get(stop.index as number) ?? null })),
    };
  };
}

/** Answers a step with the job as it now is, and the step's stages in `Server-Timing`. */
export async function answerWithJob(
  res: Response,
  timing: ServerTiming,
  jobView: ReturnType<typeof createJobView>,
  deliveryId: string,
  riderId: string,
): Promise<void> {
  const view = await timing.measure('view', () => jobView(deliveryId, riderId));
  timing.writeTo(res);
  res.json(view);
}
