import { CANCELLABLE, TRANSITIONS, canTransition, eventNameFor, isTerminal, DELIVERY_STATUSES } from '../../domain/lifecycle';
import { firstNameAndInitial } from '../../domain/redaction';
import { deliveryReference } from '../../domain/reference';
import { isGhanaMobile, isGhanaPhone } from '../../domain/phone';
import { isoOffset, isoZ } from '../../domain/delivery-view';

describe('the delivery state machine', () => {
  it('moves forward only, and terminal statuses lead nowhere', () => {
    const order = ['pending', 'accepted', 'picked_up', 'in_transit', 'delivered'];
    for (const [from, targets] of Object.entries(TRANSITIONS)) {
      for (const to of targets) {
        if (order.includes(from) && order.includes(to)) expect(order.indexOf(to)).toBeGreaterThan(order.indexOf(from));
      }
    }
    for (const status of DELIVERY_STATUSES.filter(isTerminal)) expect(TRANSITIONS[status]).toEqual([]);
  });

  it('allows cancel before pickup only', () => {
    expect(CANCELLABLE).toEqual(['pending', 'accepted']);
    expect(canTransition('picked_up', 'cancelled')).toBe(false);
    expect(canTransition('pending', 'expired')).toBe(true);
    expect(canTransition('accepted', 'expired')).toBe(false);
  });

  it('emits an event for every status but pending', () => {
    expect(eventNameFor('pending')).toBeNull();
    expect(eventNameFor('picked_up')).toBe('delivery.picked_up');
  });
});

describe('public redaction and references', () => {
  it('keeps a first name and an initial', () => {
    expect(firstNameAndInitial('Ama Serwaa Mensah')).toBe('Ama M.');
    expect(firstNameAndInitial('  kofi   boateng ')).toBe('kofi B.');
    expect(firstNameAndInitial('Esi')).toBe('Esi');
  });

  it('builds the short reference from the id', () => {
    expect(deliveryReference('6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a')).toBe('DLV-6F1C2B1E');
    expect(deliveryReference('6f1c2b1e-8d7a-4c55-9b0e-2f5a4d3c2b1a', 'XP')).toBe('XP-6F1C2B1E');
  });

  it('formats timestamps with Z, and callbacks with +00:00', () => {
    expect(isoZ(new Date('2026-11-21T14:03:00Z'))).toBe('2026-11-21T14:03:00.000Z');
    expect(isoOffset(new Date('2026-11-21T14:03:00Z'))).toBe('2026-11-21T14:03:00.000+00:00');
  });
});

describe('Ghana phone numbers', () => {
  it('accepts +233 and nine digits in allocated ranges', () => {
    expect(isGhanaPhone('+233241234567')).toBe(true);
    expect(isGhanaPhone('+233201234567')).toBe(true);
    expect(isGhanaMobile('+233551234567')).toBe(true);
  });

  it('refuses other shapes and countries', () => {
    for (const phone of ['0241234567', '+23324123456', '+2332412345678', '+234241234567', '+233 24 123 4567', '+233001234567']) {
      expect(isGhanaPhone(phone)).toBe(false);
    }
  });
});
