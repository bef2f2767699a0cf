import { InterceptingCall, ListenerBuilder, RequesterBuilder, type Interceptor } from '@grpc/grpc-js';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

/** How long `close` waits for the calls still in flight before it leaves the connection open. */
const SETTLE_LIMIT_MS = 5_000;

export interface TestTemporalConnection {
  connection: Connection;
  /** Closes the connection once no call is in flight on it (retries included), or leaves it open after the limit. */
  close(settleLimitMs?: number): Promise<void>;
}

/**
 * A Temporal client connection for a test file. The SDK retries a failed call from a timer; when
 * that timer fires after the channel closed, it throws "Channel has been shut down" outside any
 * promise, and jest pins it on whichever test the process runs next. So the connection counts
 * its calls and closes only when none is left.
 */
export async function connectTemporal(address: string): Promise<TestTemporalConnection> {
  let inFlight = 0;
  let settled: (() => void) | null = null;
  const counting: Interceptor = (options, nextCall) =>
    new InterceptingCall(
      nextCall(options),
      new RequesterBuilder()
        .withStart((metadata, listener, next) => {
          inFlight++;
          next(
            metadata,
            new ListenerBuilder()
              .withOnReceiveStatus((status, nextStatus) => {
                inFlight--;
                if (inFlight === 0) settled?.();
                nextStatus(status);
              })
              .build(),
          );
        })
        .build(),
    );
  // Outermost, so a call counts until the retry interceptor inside it has given its last answer.
  const interceptors = [counting, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())];
  const connection = await Connection.connect({ address, interceptors });
  return {
    connection,
    async close(settleLimitMs = SETTLE_LIMIT_MS) {
      const started = Date.now();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const limit = setTimeout(resolve, settleLimitMs);
          settled = () => {
            clearTimeout(limit);
            resolve();
          };
        });
      }
      if (inFlight > 0) {
        // A call that outlives the test (a long poll it left behind) keeps the connection; the jest
        // process ends soon anyway.
        process.stderr.write(`test Temporal connection: ${inFlight} calls still in flight after ${Date.now() - started} ms; left open\n`);
        return;
      }
      await connection.close();
    },
  };
}
