/** One entry of a delivery's payment trail: the debit's first outcome, then each correction. */
export interface PaymentTrailEntry {
  at: Date;
  from: string;
  to: string;
  reason: string | null;
  /** `workflow` for the debit's own outcome; `schedule` or `late-confirmation` for a correction. */
  by: string;
  /** Made after the delivery's last status change, so no webhook told the partner. */
  afterFinalWebhook: boolean;
}
