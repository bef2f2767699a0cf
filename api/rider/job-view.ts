import type { Response } from 'express';
import * as riders from '../../db/riders';
import type { JobViewRead, RiderJobView } from '../../db/riders';
import { ACTIVE_FOR_RIDER, FINAL_DROP, type DeliveryStatus } from '../../domain/lifecycle';
import type { DeliveryState } from '../../workflows/messages';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { endJobCalls, openJobCall } from '../masked-calls';
import type { ServerTiming } from '../server-timing';

type MaskedCall = { via: string; expires_at: string };
type Calls = Map<number, MaskedCall | null>;

/**
 * The job as the rider app shows it: the delivery and its additional stops, each recipient with
 * a masked number to call (`call`) while the job is active, never their own number.
 */
export function createJobView(deps: Pick<AppDeps, 'orm' | 'calling' | 'logger'>) {
  /** Each recipient's masked number while the job is active for its rider; once it is not, its sessions end. */
  async function callsFor(read: JobViewRead, status: string, deliveryId: string, riderId: string): Promise<Calls> {
    const calls: Calls = new Map();
    if (ACTIVE_FOR_RIDER.includes(status as DeliveryStatus)) {
      // Every recipient's session at once: the rider app reads its job every few seconds.
      const sessions = await Promise.all(
        read.recipients.map((recipient) =>
          openJobCall(deps, { jobId: deliveryId, stopIndex: recipient.index, riderId, riderPhone: read.riderPhone, recipientPhone: recipient.phone }),
        ),
      );
      sessions.forEach((session, i) => {
        if (session) calls.set(read.recipients[i]!.index, { via: session.proxyNumber, expires_at: session.expiresAt.toISOString() });
      });
    } else {
      // The job is over (or not yet the rider's): whatever was handed out stops bridging now.
      await endJobCalls(deps, deliveryId);
    }
    return calls;
  }

  function present({ job }: JobViewRead, calls: Calls): RiderJobView {
    return {
      ...job,
      call: calls.get(FINAL_DROP) ?? null,
      stops: job.stops.map((stop) => ({ ...stop, call: calls.get(stop.index as number) ?? null })),
    };
  }

  return {
    callsFor,
    present,
    /** The job as it is now, read afresh. */
    async current(deliveryId: string, riderId: string): Promise<RiderJobView> {
      const found = await riders.jobView(deps.orm.em, deliveryId);
      if (!found) throw ApiError.notFound('Unknown delivery');
      return present(found, await callsFor(found, found.job.status, deliveryId, riderId));
    },
  };
}

export type JobViews = ReturnType<typeof createJobView>;

/**
 * The job read before a step, as the workflow's answer left it: its status, and the stops handed
 * over (in order, so the first `stopsCompleted`). Nothing else a step changes is in the view.
 */
export function afterStep(read: JobViewRead, state: DeliveryState): JobViewRead {
  const stops = read.job.stops.map((stop, i) => (i < state.stopsCompleted ? { ...stop, status: 'delivered' } : stop));
  return { ...read, job: { ...read.job, status: state.status, stops } };
}

/**
 * Sends a step's workflow update and answers with the job as the step left it, built from the
 * read taken before the step: one read a step, not one before and one after. A step that keeps
 * the job active (`callsMeanwhile`) asks for the call numbers while the update runs.
 */
export async function answerStep(
  res: Response,
  timing: ServerTiming,
  views: JobViews,
  step: { read: JobViewRead; deliveryId: string; riderId: string; callsMeanwhile: boolean },
  update: () => Promise<DeliveryState | null>,
): Promise<void> {
  const { read, deliveryId, riderId } = step;
  const [state, early] = await Promise.all([
    timing.measure('update', update),
    step.callsMeanwhile ? views.callsFor(read, read.job.status, deliveryId, riderId) : null,
  ]);
  // The workflow had ended and that was what the step asked: the job is read as it is.
  if (state === null) {
    const view = await timing.measure('view', () => views.current(deliveryId, riderId));
    timing.writeTo(res);
    res.json(view);
    return;
  }
  const after = afterStep(read, state);
  const stillActive = ACTIVE_FOR_RIDER.includes(state.status);
  const calls = early && stillActive ? early : await timing.measure('calls', () => views.callsFor(after, state.status, deliveryId, riderId));
  timing.writeTo(res);
  res.json(views.present(after, calls));
}
