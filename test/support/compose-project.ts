import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type Dockerode from "dockerode";
import type { ContainerInfo } from "dockerode";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface ComposeRun {
  readonly status: number;
  readonly output: string;
}

/** One Compose project on one daemon, driven through Debian's docker-compose (1.29). */
export interface ComposeProject {
  readonly name: string;
  /** `docker-compose -p <name> -f … <args>`; rejects on a non-zero exit with its output. */
  compose(args: readonly string[], timeoutMs?: number): Promise<string>;
  /** The same, resolving with the exit status instead of rejecting. */
  tryCompose(args: readonly string[], timeoutMs?: number): Promise<ComposeRun>;
  /** The project's containers, running or not (Compose labels them with the project's name). */
  containers(): Promise<ContainerInfo[]>;
  /** What of the project the daemon still has: containers, volumes and networks by name. */
  leftovers(): Promise<{ containers: string[]; volumes: string[]; networks: string[] }>;
}

export interface ComposeProjectOptions {
  readonly name: string;
  /** Compose files, relative to the repository root (the project directory). */
  readonly files: readonly string[];
  readonly docker: Dockerode;
  readonly socketPath: string;
  /** The only environment docker-compose sees besides PATH and HOME: what the files interpolate. */
  readonly env: Readonly<Record<string, string>>;
}

/** Compose labels everything it creates with its project's name. */
const PROJECT_LABEL = "com.docker.compose.project";

export function composeProject(options: ComposeProjectOptions): ComposeProject {
  const files = options.files.flatMap((file) => ["-f", file]);
  const env = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", HOME: process.env.HOME ?? "/root", DOCKER_HOST: `unix://${options.socketPath}`, ...options.env };
  const tryCompose = async (args: readonly string[], timeoutMs = 300_000): Promise<ComposeRun> => {
    try {
      const { stdout, stderr } = await execFileAsync("docker-compose", ["--project-directory", ROOT, "-p", options.name, ...files, ...args], {
        cwd: ROOT,
        env,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        encoding: "utf8",
      });
      return { status: 0, output: `${stdout}${stderr}` };
    } catch (err) {
      const failed = err as { code?: unknown; stdout?: string; stderr?: string };
      if (typeof failed.code !== "number") throw err;
      return { status: failed.code, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
    }
  };
  const filter = { label: [`${PROJECT_LABEL}=${options.name}`] };
  return {
    name: options.name,
    tryCompose,
    compose: async (args, timeoutMs) => {
      const result = await tryCompose(args, timeoutMs);
      if (result.status !== 0) throw new Error(`docker-compose ${args.join(" ")} exited ${result.status}:\n${result.output.slice(-6000)}`);
      return result.output;
    },
    containers: () => options.docker.listContainers({ all: true, filters: filter }),
    leftovers: async () => {
      const [containers, volumes, networks] = await Promise.all([
        options.docker.listContainers({ all: true, filters: filter }),
        options.docker.listVolumes({ filters: filter }),
        options.docker.listNetworks({ filters: filter }),
      ]);
      return {
        containers: containers.flatMap((container) => container.Names),
        volumes: ((volumes.Volumes as { Name: string }[] | null) ?? []).map((volume) => volume.Name),
        networks: networks.map((network) => network.Name),
      };
    },
  };
}
