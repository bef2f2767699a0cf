// The live JavaScript heap of a node process started with `--inspect`: a full collection through
// the inspector, then the heap's used size. Resident memory rising while the live heap stays flat
// is a heap (or an allocator) that has not handed pages back; the live heap rising is a leak.

/** Node flags that open the inspector on `port`, on the loopback interface only. */
export function inspectFlags(port) {
  return [`--inspect=127.0.0.1:${port}`];
}

/** Calls inspector methods (`{ method, params }`) in turn over one session; resolves with each result. */
async function inspect(port, calls) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error(`no inspector session on port ${port}`)), { once: true });
  });
  const waiting = new Map();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    const settle = waiting.get(message.id);
    if (!settle) return;
    waiting.delete(message.id);
    if (message.error) settle.reject(new Error(`${message.error.message} (inspector)`));
    else settle.resolve(message.result);
  });
  try {
    const results = [];
    for (const [index, call] of calls.entries()) {
      results.push(
        await new Promise((resolve, reject) => {
          waiting.set(index + 1, { resolve, reject });
          socket.send(JSON.stringify({ id: index + 1, ...call }));
        }),
      );
    }
    return results;
  } finally {
    socket.close();
  }
}

/**
 * What the process whose inspector listens on `port` holds after a full collection, in MB: its
 * live JavaScript heap, and the memory outside it that live objects own (`external`: buffers
 * and other native allocations V8 is told of).
 */
export async function liveHeapMb(port) {
  const [, { result }] = await inspect(port, [
    { method: 'HeapProfiler.collectGarbage' },
    { method: 'Runtime.evaluate', params: { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true } },
  ]);
  const usage = JSON.parse(result.value);
  return { heapMb: usage.heapUsed / 1024 / 1024, externalMb: usage.external / 1024 / 1024 };
}

/**
 * Each named process's live heap and external memory in MB (`ports`: name → inspector port), as
 * `name` and `name external`; null where it could not be read.
 */
export async function liveHeaps(ports) {
  const entries = await Promise.all(
    Object.entries(ports).map(async ([name, port]) => {
      const read = await liveHeapMb(port).catch(() => null);
      return [
        [name, read?.heapMb ?? null],
        [`${name} external`, read?.externalMb ?? null],
      ];
    }),
  );
  return Object.fromEntries(entries.flat());
}
