import { checkWebhookUrl } from '../../api/partner/webhook-url-check';
import { urlProblem } from '../../api/dashboard/routes/webhook-pages';
import { ApiError } from '../../api/api-error';

async function refusal(url: string, production = true): Promise<ApiError> {
  try {
    await checkWebhookUrl(url, production);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`${url} was accepted`);
}

describe('callback URL check in production', () => {
  it('accepts an HTTPS URL on a public address', async () => {
    await expect(checkWebhookUrl('https://93.184.215.14/hooks/deliveries', true)).resolves.toBe('https://93.184.215.14/hooks/deliveries');
  });

  it.each([
    ['plain http', 'http://93.184.215.14/hooks', /https/],
    ['a private 10.x address', 'https://10.1.2.3/hooks', /private/],
    ['a private 172.16.x address', 'https://172.16.0.9/hooks', /private/],
    ['a private 192.168.x address', 'https://192.168.1.20/hooks', /private/],
    ['loopback', 'https://127.0.0.1/hooks', /loopback/],
    ['loopback written in short form', 'https://127.1/hooks', /loopback/],
    ['loopback written as one number', 'https://2130706433/hooks', /loopback/],
    ['IPv6 loopback', 'https://[::1]/hooks', /loopback/],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data', /link-local/],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hooks', /loopback/],
    ['IPv6 unique-local', 'https://[fd00::1]/hooks', /private/],
    ['the unspecified address', 'https://0.0.0.0/hooks', /unspecified/],
    ['a host name that resolves to loopback', 'https://localhost/hooks', /loopback/],
    ['a URL with credentials', 'https://user:pass@93.184.215.14/hooks', /user or password/],
    ['something that is not a URL', 'not a url', /not a valid URL/],
    ['a URL with a space in it', 'https://93.184.215.14/my hooks', /not a valid URL/],
    ['a URL with spaces around it', ' https://93.184.215.14/hooks ', /not a valid URL/],
  ])('refuses %s with a reason', async (_what, url, reason) => {
    const error = await refusal(url);
    expect(error.status).toBe(400);
    expect(error.code).toBe('bad_request');
    expect(String(error.details.webhook_url)).toMatch(reason);
  });
});

describe('the URL kept', () => {
  it('is the URL as sent, not a normalised form, so the partner reads back what it wrote', async () => {
    await expect(checkWebhookUrl('https://93.184.215.14', true)).resolves.toBe('https://93.184.215.14');
    await expect(checkWebhookUrl('http://LocalHost:8080', false)).resolves.toBe('http://LocalHost:8080');
  });
});

describe('the dashboard’s words for a refused address', () => {
  it.each([
    ['https://10.1.2.3/hooks', 'a private network address'],
    ['https://[fd00::1]/hooks', 'a private (IPv6 unique local) network address'],
    ['https://169.254.169.254/latest', 'a link-local network address'],
  ])('names the kind of address %s is', async (url, words) => {
    const error = await refusal(url);
    expect(urlProblem(error.details.webhook_url, error.message)).toBe(
      `This address leads to ${words}, which we cannot call; use a public address`,
    );
  });
});

describe('callback URL check outside production', () => {
  it('allows plain http and loopback, so partners can test against a local receiver', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:8080/hooks', false)).resolves.toBe('http://127.0.0.1:8080/hooks');
    await expect(checkWebhookUrl('http://localhost:8080/hooks', false)).resolves.toBe('http://localhost:8080/hooks');
  });

  it('still refuses other schemes', async () => {
    expect((await refusal('ftp://127.0.0.1/hooks', false)).status).toBe(400);
  });
});

describe('callback URL check outside production, other addresses', () => {
  it.each([
    ['https://10.1.2.3/hooks', /private/],
    ['http://172.16.0.9/hooks', /private/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['https://[fd00::1]/hooks', /private/],
    ['http://[::ffff:192.168.1.1]/hooks', /private/],
  ])('refuses %s: only loopback is let through', async (url, reason) => {
    const error = await refusal(url, false);
    expect(error.status).toBe(400);
    expect(String(error.details.webhook_url)).toMatch(reason);
  });

  it('takes loopback written in any form', async () => {
    for (const url of ['http://127.0.0.2:8080/hooks', 'http://[::1]:8080/hooks', 'http://[::ffff:127.0.0.1]:8080/hooks']) {
      await expect(checkWebhookUrl(url, false)).resolves.toBe(url);
    }
  });
});
