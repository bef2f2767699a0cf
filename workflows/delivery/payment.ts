import { ActivityFailure, ApplicationFailure, condition } from '@temporalio/workflow';
import { DEBIT_STORE_UNAVAILABLE } from '../messages';
import type { DebitAnswer, DebitOutcome, Delivery } from './state';

/**
 * One debit as the workflow settles it: the booking's, or a fare change's. Each is requested,
 * then confirmed by the gateway's callback or by polling; an outcome the gateway has not given its
 * word on is recorded as such, and the reconciliation asks the gateway again later.
 */
interface Debit {
  request(): Promise<DebitAnswer>;
  /** The gateway's word on it (its `verify`). */
  check(): Promise<DebitAnswer>;
  /** The confirmation its callback (or the sandbox network) has sent, if any. */
  confirmation(): DebitAnswer | undefined;
}

/** The booking's debit, beside dispatch and never blocking it. */
export async function collectPayment(delivery: Delivery): Promise<void> {
  const { deliveryId } = delivery.input;
  const debit: Debit = {
    request: () => delivery.acts.gateway.requestDebit({ deliveryId }),
    check: () => delivery.acts.gateway.checkDebit({ deliveryId }),
    confirmation: () => delivery.confirmedPayment,
  };
  await delivery.recordPayment(await settleDebit(delivery, debit));
}

/** The debit of a fare change's difference (`reference`), beside the delivery like the booking's. */
export async function collectChangeDebit(delivery: Delivery, reference: string): Promise<void> {
  const { deliveryId } = delivery.input;
  const debit: Debit = {
    request: () => delivery.acts.gateway.requestDebit({ deliveryId, reference }),
    check: () => delivery.acts.gateway.checkDebit({ deliveryId, reference }),
    confirmation: () => delivery.changeDebits.get(reference)?.confirmed,
  };
  await delivery.recordChangePayment(reference, await settleDebit(delivery, debit));
}

async function settleDebit(delivery: Delivery, debit: Debit): Promise<DebitOutcome> {
  let answer: DebitAnswer | null;
  try {
    answer = await requestDebit(debit);
  } catch {
    // The tries ran out, but the charge may have been made all the same (a timeout after the
    // gateway took it): a confirmation already received, else the gateway itself, says what happened.
    const confirmed = debit.confirmation();
    if (confirmed) return { ...confirmed, confirmed: true };
    answer = await askGateway(debit);
    if (!answer) return { state: 'failed', reason: 'The mobile network did not answer', confirmed: false };
  }
  if (answer.state === 'pending') return waitForConfirmation(delivery, debit);
  return { ...answer, confirmed: true };
}

/**
 * The activity's 5 tries are the network's budget. A round whose last try failed on our own
 * Postgres starts again: an outage of ours must never become a `failed` payment nobody declined.
 */
async function requestDebit(debit: Debit): Promise<DebitAnswer> {
  for (;;) {
    try {
      return await debit.request();
    } catch (error) {
      if (!failedOnOurStore(error)) throw error;
    }
  }
}

/** The gateway's word on the debit, or null when it does not answer. */
async function askGateway(debit: Debit): Promise<DebitAnswer | null> {
  try {
    return await debit.check();
  } catch {
    return null;
  }
}

/**
 * Waits for the callback, asking the gateway every `paymentPollSeconds`, for at most
 * `paymentConfirmLimitSeconds`; a debit still unconfirmed then is recorded failed without the
 * gateway's word, for the reconciliation to settle if the customer approves later.
 */
async function waitForConfirmation(delivery: Delivery, debit: Debit): Promise<DebitOutcome> {
  const { paymentPollSeconds, paymentConfirmLimitSeconds } = delivery.input.timings;
  for (let waited = 0; ; ) {
    if (await condition(() => debit.confirmation() !== undefined, paymentPollSeconds * 1000)) {
      return { ...(debit.confirmation() as DebitAnswer), confirmed: true };
    }
    waited += paymentPollSeconds;
    const answer = await askGateway(debit);
    if (answer && answer.state !== 'pending') return { ...answer, confirmed: true };
    if (waited >= paymentConfirmLimitSeconds) return { state: 'failed', reason: 'The debit was not confirmed in time', confirmed: false };
  }
}

function failedOnOurStore(error: unknown): boolean {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === DEBIT_STORE_UNAVAILABLE;
}
