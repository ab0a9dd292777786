/** Tracks responses the sim deliberately holds open (timeouts, slow bodies) so closing can end them all. */

export type HeldRequests = {
  /** Registers a way to end one held response; returns the function that forgets it. */
  register(release: () => void): () => void;
  releaseAll(): void;
  readonly size: number;
};

export function createHeldRequests(): HeldRequests {
  const releases = new Set<() => void>();
  return {
    register(release) {
      releases.add(release);
      return () => {
        releases.delete(release);
      };
    },
    releaseAll() {
      for (const release of [...releases]) release();
      releases.clear();
    },
    get size() {
      return releases.size;
    },
  };
}

/**
 * A response that never comes: held until the client gives up or the sim closes, then `answer`
 * (a 503 by default) ends it for nobody.
 */
export function holdOpen(request: Request, held: HeldRequests, answer: () => Response = () => new Response('held open', { status: 503 })): Promise<Response> {
  return holdUntilDone(request, held).then(answer);
}

/** Resolves when the client gives up, the sim closes, or (with `ms`) that long has passed. */
export function holdUntilDone(request: Request, held: HeldRequests, ms?: number): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      forget();
      request.signal.removeEventListener('abort', finish);
      resolve();
    };
    const timer = ms === undefined ? undefined : setTimeout(finish, ms);
    const forget = held.register(finish);
    if (request.signal.aborted) finish();
    else request.signal.addEventListener('abort', finish, { once: true });
  });
}
