/** The short human reference of a delivery: `<PREFIX>-<first 8 characters of the id, uppercase>`. */
export function deliveryReference(deliveryId: string, prefix = 'DLV'): string {
  return `${prefix}-${deliveryId.replace(/-/g, '').slice(0, 8).toUpperCase()}`;
}

/** Temporal workflow id of a delivery. */
export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery-${deliveryId}`;
}
