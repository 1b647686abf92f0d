/**
 * The probe an install-shaped sandbox runs in install-hooks.test.ts (with the image's node 18,
 * behind the registry forwarder): it tries every way out it can think of and prints what happened
 * as JSON. Only the allowlisted registry may answer. Kept as text: it runs inside the sandbox,
 * not in the test process.
 */
export const INSTALL_PROBE = `import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { connect as tlsConnect } from "node:tls";

const env = process.env;
const tcp = (options) =>
  new Promise((resolve) => {
    const socket = connect({ ...options, timeout: 3000 });
    socket.on("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.on("error", (err) => resolve(err.code ?? err.message));
    socket.on("timeout", () => {
      socket.destroy();
      resolve("timeout");
    });
  });

/** Sends CONNECT through \`path\` (the proxy socket) or the forwarder; resolves to the status line and the socket. */
const connectThrough = (target, options = { host: "127.0.0.1", port: 3128 }) =>
  new Promise((resolve) => {
    const socket = connect(options, () => socket.write(\`CONNECT \${target} HTTP/1.1\\r\\nHost: \${target}\\r\\n\\r\\n\`));
    socket.once("data", (data) => resolve({ socket, status: data.toString("latin1").split("\\r\\n")[0] }));
    socket.on("error", (err) => resolve({ socket: null, status: err.code }));
  });

const status = async (target, options) => {
  const { socket, status: line } = await connectThrough(target, options);
  socket?.destroy();
  return line;
};

const writable = (path) => {
  try {
    writeFileSync(path, "x");
    return "writable";
  } catch (err) {
    return err.code;
  }
};

const out = {};
out.ifaces = readFileSync("/proc/net/dev", "utf8").split("\\n").slice(2).map((line) => line.split(":")[0].trim()).filter(Boolean);
out.directByName = await tcp({ host: "registry.npmjs.org", port: 443 });
out.directByIp = await tcp({ host: env.REVIEWBOT_REGISTRY_IP, port: 443 });
out.hostListener = await tcp({ host: env.REVIEWBOT_HOST_IP, port: Number(env.REVIEWBOT_HOST_PORT) });
out.refused = {};
for (const target of ["example.com:443", "registry.npmjs.org:22", "registry.npmjs.org:80", \`\${env.REVIEWBOT_REGISTRY_IP}:443\`, "localhost:443", "registry.npmjs.org.evil.example:443"]) {
  out.refused[target] = await status(target);
}
out.socketDirect = await status("example.com:443", { path: "/run/reviewbot/registry/proxy.sock" });
out.plainHttp = await new Promise((resolve) => {
  const req = request({ host: "127.0.0.1", port: 3128, path: "http://registry.npmjs.org/is-number", headers: { host: "registry.npmjs.org" } }, (res) => {
    res.resume();
    resolve(res.statusCode);
  });
  req.on("error", (err) => resolve(err.code));
  req.end();
});
// Negative control: the allowlisted registry, through the proxy, over TLS with the host's CA bundle.
out.registry = await new Promise((resolve) => {
  connectThrough("registry.npmjs.org:443").then(({ socket, status: line }) => {
    if (socket === null || !line.includes(" 200 ")) return resolve(line);
    const tls = tlsConnect({ socket, servername: "registry.npmjs.org", ca: readFileSync(env.NODE_EXTRA_CA_CERTS) }, () => {
      tls.write("GET /is-number HTTP/1.1\\r\\nHost: registry.npmjs.org\\r\\nConnection: close\\r\\n\\r\\n");
    });
    let head = "";
    tls.on("data", (data) => (head += data.toString("latin1")));
    tls.on("end", () => resolve(head.split("\\r\\n")[0]));
    tls.on("error", (err) => resolve(err.message));
  });
});
out.depsTarget = writable("/opt/reviewbot/deps/probe");
out.registryDir = writable("/run/reviewbot/registry/probe");
out.work = writable("/work/probe");
console.log(JSON.stringify(out));
`;
