// The live JavaScript heap of a node process started with `--inspect`: a full collection through
// the inspector, then the heap's used size. Resident memory rising while the live heap stays flat
// is a heap (or an allocator) that has not handed pages back; the live heap rising is a leak.

/** Node flags that open the inspector on `port`, on the loopback interface only. */
export function inspectFlags(port) {
  return [`--inspect=127.0.0.1:${port}`];
}

/** Calls inspector methods in turn over one session; resolves with each result. */
async function inspect(port, methods) {
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
    for (const [index, method] of methods.entries()) {
      results.push(
        await new Promise((resolve, reject) => {
          waiting.set(index + 1, { resolve, reject });
          socket.send(JSON.stringify({ id: index + 1, method }));
        }),
      );
    }
    return results;
  } finally {
    socket.close();
  }
}

/** The live heap in MB of the process whose inspector listens on `port`, after a full collection. */
export async function liveHeapMb(port) {
  const [, usage] = await inspect(port, ['HeapProfiler.collectGarbage', 'Runtime.getHeapUsage']);
  return usage.usedSize / 1024 / 1024;
}

/** Each named process's live heap in MB (`ports`: name → inspector port); null where it could not be read. */
export async function liveHeaps(ports) {
  const entries = await Promise.all(
    Object.entries(ports).map(async ([name, port]) => [name, await liveHeapMb(port).catch(() => null)]),
  );
  return Object.fromEntries(entries);
}
