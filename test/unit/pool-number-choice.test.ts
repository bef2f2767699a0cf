import { choosePoolNumber } from '../../integrations/calling/pool-number-choice';

const POOL = ['+233302000001', '+233302000002', '+233302000003'];
const none = new Map<string, number>();

describe('which pool number a new session gets', () => {
  it('takes the first number when nothing is in use', () => {
    expect(choosePoolNumber(POOL, { heldByCaller: [], openSessions: none })).toBe('+233302000001');
  });

  it('never gives a caller a number they already hold in another open session', () => {
    expect(choosePoolNumber(POOL, { heldByCaller: ['+233302000001'], openSessions: none })).toBe('+233302000002');
    expect(choosePoolNumber(POOL, { heldByCaller: ['+233302000001', '+233302000002'], openSessions: new Map([['+233302000003', 40]]) })).toBe(
      '+233302000003',
    );
  });

  it('spreads sessions over the numbers: the least used first, ties in the pool’s order', () => {
    const openSessions = new Map([
      ['+233302000001', 3],
      ['+233302000002', 1],
      ['+233302000003', 1],
    ]);
    expect(choosePoolNumber(POOL, { heldByCaller: [], openSessions })).toBe('+233302000002');
    expect(choosePoolNumber(POOL, { heldByCaller: ['+233302000002'], openSessions })).toBe('+233302000003');
  });

  it('has none for a caller who holds every number', () => {
    expect(choosePoolNumber(POOL, { heldByCaller: [...POOL], openSessions: none })).toBeNull();
    expect(choosePoolNumber([], { heldByCaller: [], openSessions: none })).toBeNull();
  });
});
