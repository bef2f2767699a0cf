import { capturingLogger } from '../helpers/captured-logs';

describe('the logger', () => {
  it('redacts secret keys at any depth and leaves the logged objects as they were', () => {
    const { logger, lines } = capturingLogger('info', 'test');
    const request = { method: 'POST', headers: { authorization: 'Bearer sk_live_topsecret1', accept: 'application/json' } };
    const attempts = [{ url: 'https://partner.example/hook', webhook_secret: 'whsec_topsecret2' }];
    logger.info('callback failed', { password: 'topsecret3', request, attempts, nested: { a: { b: { token: 'rk_topsecret4' } } } });

    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).not.toMatch(/topsecret/);
    const logged = JSON.parse(line);
    expect(logged.password).toBe('[redacted]');
    expect(logged.request).toEqual({ method: 'POST', headers: { authorization: '[redacted]', accept: 'application/json' } });
    expect(logged.attempts).toEqual([{ url: 'https://partner.example/hook', webhook_secret: '[redacted]' }]);
    expect(logged.nested.a.b.token).toBe('[redacted]');
    // The caller's objects still hold what they held.
    expect(request.headers.authorization).toBe('Bearer sk_live_topsecret1');
    expect(attempts[0]!.webhook_secret).toBe('whsec_topsecret2');
  });

  it('keeps an error logged whole, with its stack', () => {
    const { logger, lines } = capturingLogger('info', 'test');
    logger.error(new Error('thrown'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: 'thrown', stack: expect.stringContaining('Error: thrown') });
  });
});
