import axios, { type AxiosInstance } from 'axios';
import type { SmsSender } from './sender';

/**
 * A generic SMS HTTP API (as Ghana's bulk-SMS providers offer): POST JSON
 * `{sender, recipients: [to], message}` with an API key header.
 */
export class HttpSms implements SmsSender {
  private readonly http: AxiosInstance;
  private readonly sender: string;

  constructor(options: { url: string; apiKey: string; sender: string; timeoutMs?: number }) {
    this.sender = options.sender;
    this.http = axios.create({
      baseURL: options.url,
      timeout: options.timeoutMs ?? 5000,
      headers: { 'api-key': options.apiKey, 'content-type': 'application/json' },
      // Only the status is read; redirects are not followed.
      maxRedirects: 0,
      validateStatus: () => true,
    });
  }

  async send(to: string, body: string): Promise<void> {
    let status: number;
    try {
      status = (await this.http.post('', { sender: this.sender, recipients: [to], message: body })).status;
    } catch (error) {
      // A fresh error without `cause`: axios errors carry the request, with the API key and the
      // message (a hand-over code) in it, and the worker logs a failed activity's error whole.
      const code = axios.isAxiosError(error) && error.code ? error.code : 'network error';
      throw new Error(`SMS API did not answer (${code})`);
    }
    if (status < 200 || status >= 300) throw new Error(`SMS API answered ${status}`);
  }
}
