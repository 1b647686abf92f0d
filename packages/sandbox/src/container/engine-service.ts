/**
 * A container engine this worker starts and supervises itself on a private socket: a
 * `podman system service` (podmanService) or a `dockerd` (dockerService), each a SupervisedDaemon.
 */
export interface EngineService {
  readonly socketPath: string;
  /** Starts the service unless it runs; a service that died is started again. */
  ensureRunning(): Promise<void>;
  /** Null while the service runs; otherwise why it does not, for a health check. */
  problem(): string | null;
  /** Stops the service; idempotent. */
  stop(): Promise<void>;
}
