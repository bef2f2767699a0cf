import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { LatLng } from '../domain/geo';
import type { RoboRiderInput } from './messages';

/** Positions between two points, so the robo rider is seen moving along the route. */
const MOVES_PER_LEG = 2;

/**
 * Drives a test-mode delivery like a rider app would, one step every `stepSeconds`: accept,
 * pick up, depart, each stop in order, deliver. It goes through the same updates as a real
 * rider, so test-mode partners see exactly the events live ones will.
 */
export async function roboRiderWorkflow(input: RoboRiderInput): Promise<void> {
  const acts = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumAttempts: 5 },
  });
  const step = () => sleep(input.stepSeconds * 1000);
  const [pickup, ...rest] = input.route as [LatLng, ...LatLng[]];

  const riderId = await acts.enlistRoboRider({ deliveryId: input.deliveryId, position: pickup });
  const act = async (action: 'accept' | 'pickup' | 'depart' | 'stop' | 'deliver', position: LatLng, index?: number) => {
    await step();
    return acts.roboRiderAct({ deliveryId: input.deliveryId, riderId, action, position, index });
  };

  if (!(await act('accept', pickup))) return;
  if (!(await act('pickup', pickup))) return;
  if (!(await act('depart', pickup))) return;
  let from = pickup;
  for (let leg = 0; leg < rest.length; leg++) {
    const to = rest[leg] as LatLng;
    for (let move = 1; move <= MOVES_PER_LEG; move++) {
      await step();
      await acts.moveRoboRider({ riderId, from, to, fraction: move / (MOVES_PER_LEG + 1) });
    }
    const isFinal = leg === rest.length - 1;
    if (!(await act(isFinal ? 'deliver' : 'stop', to, isFinal ? undefined : leg))) return;
    from = to;
  }
}
