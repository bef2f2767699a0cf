import { Context } from '@temporalio/activity';
import type { MetricMeter, MetricTags } from '@temporalio/common';

/**
 * The worker's business counters. They go through the Temporal SDK's metric meter, so they are
 * served beside the SDK's own metrics on the worker's Prometheus endpoint (WORKER_METRICS_PORT),
 * each tagged with the activity's namespace, task queue and workflow type.
 */
function meter(): MetricMeter | null {
  try {
    return Context.current().metricMeter;
  } catch {
    // Called outside an activity (a script, say): there is nothing to report to.
    return null;
  }
}

function count(name: string, help: string, tags: MetricTags): void {
  meter()?.createCounter(name, undefined, help).add(1, tags);
}

export const workerMetrics = {
  /** A status change written to the read model. */
  transition(status: string): void {
    count('delivery_transitions_total', 'Delivery status changes recorded, by status', { status });
  },
  /**
   * How long one stage of recording a status change took: `read`, the delivery as the change
   * finds it; `eta`, the figure worked out for it; `write`, its statement in Postgres. A rider's
   * step waits on all three.
   */
  transitionStage(stage: 'read' | 'eta' | 'write', ms: number): void {
    meter()
      ?.createHistogram('delivery_transition_stage_latency', 'float', 'ms', 'Time to read a delivery for a status change, work out its ETA and write it, in ms')
      .record(ms, { stage });
  },
  /** One try at one callback; `final` when the retry policy will not try again. */
  webhookAttempt(outcome: 'delivered' | 'failed', final: boolean): void {
    count('webhook_attempts_total', 'Callback attempts, by outcome', { outcome });
    if (outcome === 'failed' && final) count('webhook_failures_total', 'Callbacks given up after the last attempt', {});
  },
  /** The final outcome of a delivery's debit. */
  debit(outcome: string, afterFinalWebhook: boolean): void {
    count('debits_total', 'Debits settled, by outcome, and whether the delivery had ended (no webhook carries the outcome)', {
      outcome,
      after_final_webhook: String(afterFinalWebhook),
    });
  },
  /** A debit's record set to the gateway's word by the reconciliation. */
  debitCorrection(from: string, to: string, afterFinalWebhook: boolean): void {
    count(
      'debit_corrections_total',
      'Debit records corrected to what the gateway says, by the states before and after, and whether the delivery had ended (no webhook carries the change)',
      { from, to, after_final_webhook: String(afterFinalWebhook) },
    );
  },
  /** A round of the street watch: riders it set offline, and the active jobs whose rider is silent now. */
  streetWatch({ ridersSetOffline, needingAttention }: { ridersSetOffline: number; needingAttention: number }): void {
    const m = meter();
    if (!m) return;
    m.createCounter('riders_set_offline_total', undefined, 'Riders the street watch set offline: silent too long, or signed out').add(ridersSetOffline, {});
    m.createGauge('jobs_needing_attention', 'int', undefined, 'Active jobs whose rider has sent neither a position nor a step for RIDER_SILENT_MINUTES').set(needingAttention, {});
  },
  /** Finished deliveries whose recipients the retention round redacted (RETENTION_DAYS). */
  redacted(deliveries: number): void {
    meter()?.createCounter('deliveries_redacted_total', undefined, 'Finished deliveries whose recipients were redacted after RETENTION_DAYS').add(deliveries, {});
  },
  /** A booking found without a workflow that claimed it, and what the sweeper did about it. */
  orphanedBooking(outcome: string): void {
    count('booking_orphans_found_total', 'Bookings found unclaimed by any workflow, by what the sweeper did', { outcome });
  },
};
