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
