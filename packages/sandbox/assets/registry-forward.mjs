// Runs INSIDE an install sandbox, with the helper image's node, as the sandbox user. The sandbox
// has no network interface but loopback; this relays each connection made to 127.0.0.1:<port>
// to the worker's registry proxy through its bind-mounted unix socket, then runs the installer
// (HTTPS_PROXY points here) and exits with its status. It grants nothing: the sandbox could talk
// to the socket itself; the proxy on the host decides what is reachable.
// Usage: node registry-forward.mjs <socket> <port> <command> [args...]
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { constants } from "node:os";

const [socketPath, port, command, ...args] = process.argv.slice(2);
if (socketPath === undefined || port === undefined || command === undefined) {
  process.stderr.write("usage: registry-forward.mjs <socket> <port> <command> [args...]\n");
  process.exit(2);
}

const server = createServer((client) => {
  const upstream = connect(socketPath);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", close).on("close", close);
  upstream.on("error", close).on("close", close);
  client.pipe(upstream).pipe(client);
});

server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(command, args, { stdio: "inherit" });
  child.on("error", (err) => {
    process.stderr.write(`${command}: ${err.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
});
