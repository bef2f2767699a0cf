import express, { Router } from 'express';
import * as debits from '../../db/debits';
import { deliveryWorkflowId } from '../../domain/reference';
import { parseDebitReference } from '../../domain/debit-reference';
import { parsePaystackEvent, verifyPaystackSignature } from '../../integrations/mobile-money/paystack';
import { paymentSettledSignal } from '../../workflows/messages';
import type { AppDeps } from '../app-deps';
import { JSON_BODY_LIMIT_BYTES } from '../middleware/body-limit';
import { ApiError } from '../api-error';
import { allowOnly } from '../middleware/allow-only';
import { withinTemporalDeadline } from '../temporal/deadline';

/**
 * Paystack's `charge.success` / `charge.failed` callback. The signature is checked over the raw
 * bytes; a valid one signals the delivery workflow, which takes the first outcome and checks any
 * later one that says otherwise with Paystack (so a callback delivered twice changes nothing).
 */
export function createPaystackCallbackRouter({ settings, temporal, logger, orm }: AppDeps): Router {
  const router = Router();
  // Paystack only ever POSTs here; any other method is 405 with `Allow`, as on every known path.
  router.all('/payments/paystack/webhook', allowOnly('POST'));
  router.post('/payments/paystack/webhook', express.raw({ type: '*/*', limit: JSON_BODY_LIMIT_BYTES }), async (req, res) => {
    const secret = settings.paystackSecretKey;
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!secret || !verifyPaystackSignature(raw, req.get('x-paystack-signature'), secret)) {
      throw ApiError.unauthorized('The callback signature is not valid');
    }
    const event = parsePaystackEvent(raw);
    if (event && event.result.state !== 'pending') {
      const settled = { state: event.result.state, reason: event.result.reason, reference: event.reference };
      // The reference names the delivery whose workflow settles the debit (domain/debit-reference.ts).
      const debit = parseDebitReference(event.reference);
      try {
        if (!debit) throw new Error('Not one of our references');
        await withinTemporalDeadline({ temporal, settings }, () =>
          temporal.workflow.getHandle(deliveryWorkflowId(debit.deliveryId)).signal(paymentSettledSignal, settled),
        );
      } catch (error) {
        // The delivery has finished, or the reference is not one of ours: a finished delivery's
        // debit is checked with Paystack by the next reconciliation, so the report is not lost.
        const ours = debit !== null && (await debits.requestRecheck(orm.em.fork(), event.reference));
        logger.warn(ours ? 'Paystack callback for a finished delivery: its debit will be checked again' : 'Paystack callback for an unknown reference', {
          reference: event.reference,
          state: event.result.state,
          error: String(error),
        });
      }
    }
    res.json({ received: true });
  });
  return router;
}
