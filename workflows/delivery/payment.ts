import { ActivityFailure, ApplicationFailure, condition } from '@temporalio/workflow';
import { DEBIT_STORE_UNAVAILABLE } from '../messages';
import type { DebitAnswer, DebitOutcome, Delivery } from './state';

/**
 * The debit, beside dispatch and never blocking it: requested, then confirmed by the gateway's
 * callback or by polling. An outcome the gateway has not given its word on is recorded as such,
 * and the reconciliation asks the gateway again later.
 */
export async function collectPayment(delivery: Delivery): Promise<void> {
  await delivery.recordPayment(await settleDebit(delivery));
}

async function settleDebit(delivery: Delivery): Promise<DebitOutcome> {
  let answer: DebitAnswer | null;
  try {
    answer = await requestDebit(delivery);
  } catch {
    // The tries ran out, but the charge may have been made all the same (a timeout after the
    // gateway took it): a confirmation already received, else the gateway itself, says what happened.
    if (delivery.confirmedPayment) return { ...delivery.confirmedPayment, confirmed: true };
    answer = await askGateway(delivery);
    if (!answer) return { state: 'failed', reason: 'The mobile network did not answer', confirmed: false };
  }
  if (answer.state === 'pending') return waitForConfirmation(delivery);
  return { ...answer, confirmed: true };
}

/**
 * The activity's 5 tries are the network's budget. A round whose last try failed on our own
 * Postgres starts again: an outage of ours must never become a `failed` payment nobody declined.
 */
async function requestDebit(delivery: Delivery): Promise<DebitAnswer> {
  for (;;) {
    try {
      return await delivery.acts.gateway.requestDebit({ deliveryId: delivery.input.deliveryId });
    } catch (error) {
      if (!failedOnOurStore(error)) throw error;
    }
  }
}

/** The gateway's word on the debit (its `verify`), or null when it does not answer. */
async function askGateway(delivery: Delivery): Promise<DebitAnswer | null> {
  try {
    return await delivery.acts.gateway.checkDebit({ deliveryId: delivery.input.deliveryId });
  } catch {
    return null;
  }
}

/**
 * Waits for the callback, asking the gateway every `paymentPollSeconds`, for at most
 * `paymentConfirmLimitSeconds`; a debit still unconfirmed then is recorded failed without the
 * gateway's word, for the reconciliation to settle if the customer approves later.
 */
async function waitForConfirmation(delivery: Delivery): Promise<DebitOutcome> {
  const { paymentPollSeconds, paymentConfirmLimitSeconds } = delivery.input.timings;
  for (let waited = 0; ; ) {
    if (await condition(() => delivery.confirmedPayment !== undefined, paymentPollSeconds * 1000)) {
      return { ...(delivery.confirmedPayment as DebitAnswer), confirmed: true };
    }
    waited += paymentPollSeconds;
    const answer = await askGateway(delivery);
    if (answer && answer.state !== 'pending') return { ...answer, confirmed: true };
    if (waited >= paymentConfirmLimitSeconds) return { state: 'failed', reason: 'The debit was not confirmed in time', confirmed: false };
  }
}

function failedOnOurStore(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === DEBIT_STORE_UNAVAILABLE;
}
