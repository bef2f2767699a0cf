import { Router, type Request, type Response } from 'express';
import * as deliveries from '../../db/deliveries';
import * as riders from '../../db/riders';
import type { JobForStep, JobViewRead, RiderPosition } from '../../db/riders';
import { FINAL_DROP } from '../../domain/lifecycle';
import { NOT_YOUR_JOB, refusalFor, type Step } from '../../domain/steps';
import { completeStopUpdate, deliverUpdate, departUpdate, pickupUpdate } from '../../workflows/messages';
import type { AppDeps } from '../app-deps';
import { ApiError, requireUuid } from '../api-error';
import { riderOf } from '../middleware/rider-auth';
import { throwIfRefused } from '../refusals';
import { ServerTiming } from '../server-timing';
import { sendDeliveryUpdate } from '../temporal/delivery-updates';
import { handOverWith, proofBrought, readHandoverProof } from './handover-proof';
import { answerStep, createJobView } from './job-view';

/** The job a rider holds and its steps: pick-up, departure, each stop and the final hand-over. */
export function createRiderJobRouter(deps: AppDeps): Router {
  const { orm } = deps;
  const router = Router();
  const views = createJobView(deps);
  const statusOf = (deliveryId: string) => () => deliveries.statusOf(orm.em.fork(), deliveryId);

  /**
   * A job this rider holds, or was offered and nobody holds yet (any other delivery is unknown to
   * them), where the rider last was, and the job's view, in one round trip: all are on the path
   * from the rider's tap to the partner's webhook. The step is refused here on the read model, by
   * the rules the workflow applies, before a photo is stored or a round trip spent.
   */
  async function jobForStep(
    req: Request,
    res: Response,
    step: (job: JobForStep) => Step,
  ): Promise<{ delivery: JobForStep; position: RiderPosition; read: JobViewRead }> {
    const id = requireUuid(req.params.id as string, 'Unknown delivery');
    const { job, position, view } = await riders.jobForStep(orm.em, id, riderOf(res).riderId);
    if (!job || !view) throw ApiError.notFound(NOT_YOUR_JOB);
    throwIfRefused(refusalFor(job, step(job)));
    return { delivery: job, position, read: view };
  }

  router.get('/rider/deliveries/current', async (_req, res) => {
    const { riderId } = riderOf(res);
    const activeDeliveryId = await riders.activeDeliveryId(orm.em.fork(), riderId);
    if (!activeDeliveryId) throw ApiError.notFound('No active job');
    res.json(await views.current(activeDeliveryId, riderId));
  });

  router.post('/rider/deliveries/:id/pickup', async (req, res) => {
    const { riderId } = riderOf(res);
    const timing = new ServerTiming();
    const { delivery, position, read } = await timing.measure('read', () => jobForStep(req, res, () => ({ kind: 'pickup', riderId })));
    await answerStep(res, timing, views, { read, deliveryId: delivery.id, riderId, callsMeanwhile: true }, () =>
      sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(pickupUpdate, { args: [{ riderId, ...position }] }), statusOf(delivery.id)),
    );
  });

  router.post('/rider/deliveries/:id/depart', async (req, res) => {
    const { riderId } = riderOf(res);
    const timing = new ServerTiming();
    const { delivery, position, read } = await timing.measure('read', () => jobForStep(req, res, () => ({ kind: 'depart', riderId })));
    await answerStep(res, timing, views, { read, deliveryId: delivery.id, riderId, callsMeanwhile: true }, () =>
      sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(departUpdate, { args: [{ riderId, ...position }] }), statusOf(delivery.id)),
    );
  });

  router.post('/rider/deliveries/:id/stops/:index/complete', async (req, res) => {
    const { riderId } = riderOf(res);
    const index = Number(req.params.index);
    const timing = new ServerTiming();
    const { delivery, position, read } = await timing.measure('read', () =>
      jobForStep(req, res, (job) => ({ kind: 'complete_stop', riderId, index, proof: proofBrought(req, job.verificationMethod) })),
    );
    const proof = await timing.measure('proof', () => readHandoverProof(deps, req, delivery, index));
    await answerStep(res, timing, views, { read, deliveryId: delivery.id, riderId, callsMeanwhile: true }, () =>
      handOverWith(deps, proof, () =>
        sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(completeStopUpdate, { args: [{ riderId, ...position, index, proof }] }), statusOf(delivery.id)),
      ),
    );
  });

  router.post('/rider/deliveries/:id/deliver', async (req, res) => {
    const { riderId } = riderOf(res);
    const timing = new ServerTiming();
    const { delivery, position, read } = await timing.measure('read', () =>
      jobForStep(req, res, (job) => ({ kind: 'deliver', riderId, proof: proofBrought(req, job.verificationMethod) })),
    );
    const proof = await timing.measure('proof', () => readHandoverProof(deps, req, delivery, FINAL_DROP));
    // The job ends with this step: its call numbers are ended once it has, not asked for meanwhile.
    await answerStep(res, timing, views, { read, deliveryId: delivery.id, riderId, callsMeanwhile: false }, () =>
      handOverWith(deps, proof, () =>
        sendDeliveryUpdate(deps, delivery.id, (h) => h.executeUpdate(deliverUpdate, { args: [{ riderId, ...position, proof }] }), statusOf(delivery.id)),
      ),
    );
  });

  return router;
}
