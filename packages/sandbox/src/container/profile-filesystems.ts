/** A host directory or file bound into the sandbox; always `nosuid,nodev` where the engine can say so. */
export interface ProfileBind {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
  readonly noexec: boolean;
}

/** The profile's filesystems, engine-neutral; `podmanHostConfig`/`dockerHostConfig` put them in each API's form. */
export interface ProfileFilesystems {
  readonly binds: readonly ProfileBind[];
  readonly tmpfs: { readonly target: string; readonly bytes: number };
}
