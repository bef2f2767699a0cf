import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The API process's Prometheus registry: HTTP traffic by route template and status, bookings,
 * and Node.js itself (event-loop lag, heap, GC). Served at GET /metrics. Labels stay bounded:
 * route templates, never raw paths, ids or partners.
 */
export const apiRegistry = new Registry();
collectDefaultMetrics({ register: apiRegistry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [apiRegistry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [apiRegistry],
});

export const deliveriesBooked = new Counter({
  name: 'deliveries_booked_total',
  help: 'Deliveries booked, by key mode',
  labelNames: ['mode'] as const,
  registers: [apiRegistry],
});

export const bookingStartFailures = new Counter({
  name: 'booking_start_failures_total',
  help: 'Bookings whose workflow start failed or timed out, by what became of the booking: withdrawn (503), claimed by a workflow that did start (201), or kept because it could not be withdrawn (503; the sweeper starts it)',
  labelNames: ['outcome'] as const,
  registers: [apiRegistry],
});

export const viewReads = new Counter({
  name: 'view_reads_total',
  help: 'Reads of the partner record and the public tracking view, by view and whether their settled part was kept (the version matched) or built',
  labelNames: ['view', 'settled'] as const,
  registers: [apiRegistry],
});
