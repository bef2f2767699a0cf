import { loadSettings } from '../../config/settings';
import { deliveryWorkflowInput, type BookedDelivery } from '../../workflows/delivery/start';

const settings = loadSettings({ DATABASE_URL: 'postgres://u@localhost:5432/db' });

function booked(overrides: Partial<BookedDelivery>): BookedDelivery {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    partnerId: '00000000-0000-4000-8000-000000000002',
    mode: 'test',
    reference: 'DLV-00000000',
    pickup: { lat: 5.55, lng: -0.21 },
    stops: [],
    dropoff: { lat: 5.6, lng: -0.17 },
    verificationMethod: 'none',
    scheduledAt: null,
    sandboxRider: null,
    ...overrides,
  };
}

describe('the sandbox rider in a delivery workflow’s input', () => {
  it('names who rides a test-mode delivery: the partner when asked, else the robo rider, as before it was kept', () => {
    expect(deliveryWorkflowInput(booked({ sandboxRider: 'manual' }), settings).sandboxRider).toBe('manual');
    expect(deliveryWorkflowInput(booked({ sandboxRider: 'robo' }), settings).sandboxRider).toBe('robo');
    expect(deliveryWorkflowInput(booked({ sandboxRider: null }), settings).sandboxRider).toBe('robo');
  });

  it('names none for a live delivery, whatever its row says: real riders ride it', () => {
    expect(deliveryWorkflowInput(booked({ mode: 'live', sandboxRider: 'manual' }), settings)).not.toHaveProperty('sandboxRider');
  });
});
