import { WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Settings } from '../../config/settings';
import { ApiError } from '../../api/api-error';
import { sendDeliveryUpdate, UNPROCESSED_TRIES } from '../../api/temporal/delivery-updates';
import { REFUSAL } from '../../domain/steps';
import type { DeliveryState } from '../../workflows/messages';

// Only the calls sendDeliveryUpdate makes of a Temporal client: a handle, and a deadline around the calls.
const temporal = {
  workflow: { getHandle: () => ({}) as WorkflowHandle },
  connection: { withDeadline: <T>(_deadline: number, calls: () => Promise<T>) => calls() },
} as unknown as Client;
const deps = { temporal, settings: { temporalCallTimeoutSeconds: 5 } as Settings };
const stillInTransit = async () => 'in_transit';

const unprocessed = () =>
  new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ type: 'UnprocessedUpdate', message: 'not processed', nonRetryable: true }));

describe('sending a message to a delivery', () => {
  it('sends again an update the server turned away unprocessed, and answers as the delivery did', async () => {
    let sends = 0;
    const answered = { status: 'in_transit', stopsCompleted: 0 } as DeliveryState;
    const send = async () => {
      sends += 1;
      if (sends < UNPROCESSED_TRIES) throw unprocessed();
      return answered;
    };
    await expect(sendDeliveryUpdate(deps, 'd1', send, stillInTransit)).resolves.toBe(answered);
    expect(sends).toBe(UNPROCESSED_TRIES);
  });

  it('answers 503 unavailable when every try is turned away unprocessed', async () => {
    let sends = 0;
    const send = async (): Promise<DeliveryState> => {
      sends += 1;
      throw unprocessed();
    };
    const answer = await sendDeliveryUpdate(deps, 'd1', send, stillInTransit).catch((e: unknown) => e);
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer).toMatchObject({ status: 503, code: 'unavailable' });
    expect(sends).toBe(UNPROCESSED_TRIES);
  });

  it('sends a refused code once and answers 400 with the refusal', async () => {
    let sends = 0;
    const send = async (): Promise<DeliveryState> => {
      sends += 1;
      throw new WorkflowUpdateFailedError(
        'Workflow Update failed',
        ApplicationFailure.create({ type: REFUSAL.verificationFailed, message: 'The code is wrong', details: [{ status: 'in_transit', otp: 'does not match' }] }),
      );
    };
    const answer = await sendDeliveryUpdate(deps, 'd1', send, stillInTransit).catch((e: unknown) => e);
    expect(answer).toMatchObject({ status: 400, code: 'bad_request', details: { status: 'in_transit', otp: 'does not match' } });
    expect(sends).toBe(1);
  });
});
