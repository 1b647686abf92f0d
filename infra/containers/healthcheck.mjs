// Container healthcheck: exits 0 when GET <url> answers 2xx within 4 s, else 1. The images have
// no curl or wget; Node 20's fetch does the job.
//   node /app/healthcheck.mjs http://127.0.0.1:3000/readyz
const url = process.argv[2] ?? "http://127.0.0.1:3000/healthz";
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
