/** Sends a text message to a phone number, about a delivery when there is one. */
export interface SmsSender {
  send(to: string, body: string, deliveryId?: string): Promise<void>;
}
