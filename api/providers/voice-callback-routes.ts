import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import ipaddr from 'ipaddr.js';
import { routesIncomingCalls, type IncomingCallRouter } from '../../integrations/calling/number-pool';
import { hasValidTwilioSignature } from '../../integrations/calling/twilio-signature';
import { africasTalkingAnswers, twimlAnswers, type VoiceAnswers } from '../../integrations/calling/voice-answers';
import type { AppDeps } from '../app-deps';
import { ApiError } from '../api-error';
import { allowOnly } from '../middleware/allow-only';
import { voiceCallbackRateLimit } from '../middleware/rate-limit';

/** A provider's callback is a few hundred bytes of form fields. */
const CALLBACK_BODY_LIMIT_BYTES = 16_000;

/** What a caller hears when a call is not put through; the same words whatever the reason, which they need not know. */
export const REFUSAL_SPOKEN = 'This number connects a rider to a customer during a delivery. There is no delivery for your phone on this number. Goodbye.';

/** The Africa's Talking path as logs and metrics show it: the secret in it never reaches a log. */
const AFRICASTALKING_PATH = '/calls/africastalking/:secret/voice';
const TWILIO_PATH = '/calls/twilio/voice';

/**
 * The voice providers' incoming-call callbacks for the number pool (CALL_MASKING=number-pool):
 * someone dials a pool number, the provider asks here what to do, and is told in its own XML to
 * put the call through to the recipient or to say no and hang up. Outside providers, not
 * partners: no key, their own authentication (Twilio's signature; for Africa's Talking a secret
 * in the path and its addresses), their raw form body, so they come before JSON parsing and the
 * OpenAPI validator (app.ts). A provider not configured has no callback here: 404.
 */
export function createVoiceCallbackRouter(deps: AppDeps): Router {
  const { settings } = deps;
  const calls = routesIncomingCalls(deps.calling) ? deps.calling : null;
  const provider = settings.callMasking === 'number-pool' && calls ? settings.callProvider : undefined;
  const router = Router();
  const readForm = express.raw({ type: () => true, limit: CALLBACK_BODY_LIMIT_BYTES });

  router.all(TWILIO_PATH, allowOnly('POST'));
  router.post(TWILIO_PATH, configured(provider === 'twilio'), voiceCallbackRateLimit(deps), readForm, async (req, res) => {
    const params = formOf(req);
    // Twilio signs the URL it was given: SITE_URL (the public address) and the path as requested.
    const url = `${settings.siteUrl}${req.originalUrl}`;
    if (!hasValidTwilioSignature(settings.twilioAuthToken as string, url, params, req.get('x-twilio-signature'))) {
      throw refused('The callback signature is not valid');
    }
    const field = fieldsOf(params);
    await answerCall(calls as IncomingCallRouter, twimlAnswers, res, field('From'), field('To'));
  });

  const allowed = addressList(settings.africastalkingCallbackIps);
  const secret = digest(settings.africastalkingCallbackSecret ?? '');
  router.all(AFRICASTALKING_PATH, logWithout('secret'), allowOnly('POST'));
  router.post(AFRICASTALKING_PATH, configured(provider === 'africastalking'), voiceCallbackRateLimit(deps), readForm, async (req, res) => {
    // Both checks, whatever the first found, so a refusal takes as long whichever failed.
    const secretMatches = timingSafeEqual(digest(String(req.params.secret)), secret);
    const fromProvider = allowed(req.ip);
    if (!secretMatches || !fromProvider) throw refused('The callback is not from the voice provider');
    const field = fieldsOf(formOf(req));
    // The last request of every call (isActive=0) reports its duration and cost: nothing to do.
    if (field('isActive') === '0') {
      res.type(africasTalkingAnswers.contentType).send('');
      return;
    }
    await answerCall(calls as IncomingCallRouter, africasTalkingAnswers, res, field('callerNumber'), field('destinationNumber'));
  });
  return router;
}

/** Puts the call through or refuses it, in the provider's words; every call is recorded either way. */
async function answerCall(calls: IncomingCallRouter, answers: VoiceAnswers, res: Response, caller: string | undefined, dialled: string | undefined): Promise<void> {
  if (!caller || !dialled) throw ApiError.badRequest('The callback names no caller or no dialled number');
  const outcome = await calls.routeCall(caller, dialled);
  // The recipient is shown the pool number the rider dialled, never the rider's own phone.
  res.type(answers.contentType).send(outcome.bridged ? answers.bridge(outcome.to, dialled) : answers.refuse(REFUSAL_SPOKEN));
}

/** A callback of a provider this deployment does not use is a path that does not exist. */
function configured(used: boolean): RequestHandler {
  return (_req, _res, next) => next(used ? undefined : ApiError.notFound('No such route'));
}

/** Keeps a path parameter out of the request log and the error log, which write the path. */
function logWithout(parameter: string): RequestHandler {
  return (req, res, next) => {
    res.locals.logPath = `${req.baseUrl}${AFRICASTALKING_PATH.replace(`:${parameter}`, `{${parameter}}`)}`;
    next();
  };
}

/** A refused callback: 401 in the error envelope, and nothing dialled. */
function refused(message: string): ApiError {
  return new ApiError(401, 'unauthorized', message);
}

/** The form fields as sent, in order; a name sent twice is kept twice (Twilio signs both). */
function formOf(req: Request): [string, string][] {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
  return [...new URLSearchParams(raw)];
}

function fieldsOf(params: [string, string][]): (name: string) => string | undefined {
  const fields = new Map(params);
  return (name) => fields.get(name);
}

/** SHA-256 first, so the secrets compared in constant time have one length whatever was sent. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether a request's address (as TRUST_PROXY reads it) is in the list of addresses and subnets;
 * an empty list takes any (outside production: loadSettings refuses it there).
 */
function addressList(items: readonly string[]): (ip: string | undefined) => boolean {
  const ranges = items.map((item) => (item.includes('/') ? ipaddr.parseCIDR(item) : wholeAddress(ipaddr.parse(item))));
  if (ranges.length === 0) return () => true;
  return (ip) => {
    if (!ip || !ipaddr.isValid(ip)) return false;
    // An IPv4 client seen through a dual-stack socket (`::ffff:203.0.113.7`) is matched as IPv4.
    const address = ipaddr.process(ip);
    return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  };
}

function wholeAddress(address: ipaddr.IPv4 | ipaddr.IPv6): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}
