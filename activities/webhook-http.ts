import http from 'node:http';
import https from 'node:https';
import axios, { type AxiosInstance } from 'axios';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

export interface WebhookResponse {
  status: number;
  latencyMs: number;
}

/** Sends one callback POST. Throws on a connection error or timeout; any HTTP answer is returned. */
export interface WebhookHttp {
  post(url: string, body: string, headers: Record<string, string>): Promise<WebhookResponse>;
}

/**
 * axios with an SSRF-filtering agent: the address is checked after DNS resolution, at connect
 * time, so a hostname that resolves (or re-resolves) to a private, loopback or link-local address
 * is refused. Redirects are never followed. Only in development and test (config/settings.ts,
 * webhooksMayReachPrivateAddresses) are loopback and private addresses allowed, for a local receiver.
 */
export class AxiosWebhookHttp implements WebhookHttp {
  private readonly http: AxiosInstance;
  private readonly timeoutMs: number;

  constructor(options: { timeoutMs: number; allowPrivateAddresses: boolean; userAgent: string }) {
    this.timeoutMs = options.timeoutMs;
    const filter = { allowPrivateIPAddress: options.allowPrivateAddresses, allowMetaIPAddress: false };
    this.http = axios.create({
      timeout: options.timeoutMs,
      maxRedirects: 0,
      // Only the status matters; the answer's body is never read, so its size cannot fail a callback.
      responseType: 'stream',
      // The body goes out as the stored bytes: axios must not re-serialise or trim it.
      transformRequest: [(data: unknown) => data],
      validateStatus: () => true,
      headers: { 'User-Agent': options.userAgent },
      httpAgent: options.allowPrivateAddresses
        ? new http.Agent({ keepAlive: true })
        : new RequestFilteringHttpAgent({ keepAlive: true, ...filter }),
      httpsAgent: options.allowPrivateAddresses
        ? new https.Agent({ keepAlive: true })
        : new RequestFilteringHttpsAgent({ keepAlive: true, ...filter }),
      proxy: false,
    });
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<WebhookResponse> {
    const started = performance.now();
    // axios's own timeout only notices an idle socket; the signal bounds the whole exchange.
    const response = await this.http.post<NodeJS.ReadableStream & { destroy(): void }>(url, Buffer.from(body, 'utf8'), {
      headers,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const latencyMs = Math.round(performance.now() - started);
    response.data.destroy();
    return { status: response.status, latencyMs };
  }
}
