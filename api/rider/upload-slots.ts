import type { RequestHandler } from 'express';
import { ApiError } from '../api-error';

/** How long an upload waits for a free slot before it is answered 503: a rider app retries. */
export const UPLOAD_SLOT_WAIT_MS = 10_000;

/**
 * Bounds the multipart uploads this process reads at once. A waiting request's body is not read,
 * so it stays in the client's and the kernel's buffers; after UPLOAD_SLOT_WAIT_MS it is answered
 * 503 `unavailable` with Retry-After. A slot is freed when the answer is sent or the client leaves.
 */
export function uploadSlots(max: number, waitMs = UPLOAD_SLOT_WAIT_MS): RequestHandler {
  let active = 0;
  const waiting = new Set<() => void>();
  const release = () => {
    active -= 1;
    const [first] = waiting;
    if (first) {
      waiting.delete(first);
      first();
    }
  };
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    const start = () => {
      active += 1;
      res.once('close', release);
      next();
    };
    if (active < max) return start();
    const gone = () => {
      waiting.delete(admit);
      clearTimeout(timer);
    };
    const admit = () => {
      clearTimeout(timer);
      res.off('close', gone);
      start();
    };
    const timer = setTimeout(() => {
      waiting.delete(admit);
      res.off('close', gone);
      next(new ApiError(503, 'unavailable', 'Too many photo uploads at once; try again shortly', {}, { 'Retry-After': '2' }));
    }, waitMs);
    waiting.add(admit);
    res.once('close', gone);
  };
}
