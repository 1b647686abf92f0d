/**
 * Podman's API streams a container's output from conmon's attach socket. When reading that socket
 * fails (conmon closed it with our connection still unaccepted, a race of short runs on a busy
 * host: containers/podman#11446), Podman ends the attach with one stderr frame of its own,
 * `Error: read unixpacket @->…/attach: read: connection reset by peer`, and what the container
 * wrote is partly or wholly lost. Nothing else marks the loss: the container exits 0.
 */
const FAILURE = /^Error: (?:read|write) unixpacket \S*attach: [^\n]*\n$/;
/** Longer than any message Podman writes there: the search looks no further back. */
const TAIL_BYTES = 1024;

/**
 * The message Podman's attach failure left at the end of a run's stderr, or null. It is checked on
 * the last bytes only (linear, bounded). A helper that prints the same line as its last stderr
 * makes its run look lost: it can only fail its own run that way (the engine runs it once more,
 * then reports the engine unavailable), never have lost output taken for a clean one.
 */
export function podmanAttachFailure(stderr: Buffer): string | null {
  const tail = stderr.subarray(Math.max(0, stderr.length - TAIL_BYTES)).toString("latin1");
  const start = tail.lastIndexOf("Error: ");
  if (start === -1) return null;
  const line = tail.slice(start);
  return FAILURE.test(line) ? line.trimEnd() : null;
}
