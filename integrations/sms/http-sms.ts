import axios, { type AxiosInstance } from 'axios';
import type { SmsSender } from './sender';

/**
 * A generic SMS HTTP API (as Ghana's bulk-SMS providers offer): POST JSON
 * `{sender, recipients: [to], message}` with an API key header.
 */
export class HttpSms implements SmsSender {
  private readonly http: AxiosInstance;

  constructor(options: { url: string; apiKey: string; sender: string; timeoutMs?: number }) {
    this.sender = options.sender;
    this.http = axios.create({
      baseURL: options.url,
      timeout: options.timeoutMs ?? 5000,
      headers: { 'api-key': options.apiKey, 'content-type': 'application/json' },
    });
  }

  private readonly sender: string;

  async send(to: string, body: string): Promise<void> {
    const response = await this.http.post('', { sender: this.sender, recipients: [to], message: body }, { validateStatus: () => true });
    if (response.status < 200 || response.status >= 300) throw new Error(`SMS API answered ${response.status}`);
  }
}
