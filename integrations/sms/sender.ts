/** Sends a text message to a phone number. */
export interface SmsSender {
  send(to: string, body: string): Promise<void>;
}
