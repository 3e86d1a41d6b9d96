// Starts policy model servers in their own process (so that the "model" does not share the
// runner's thread in a benchmark) and prints their URLs as one JSON line; when stdin closes,
// prints each server's peak of requests in flight (measured by the server) as a second line, and stops.
//   node benchmarks/lib/policy-servers.mjs '{"count":4,"delayMs":100,"turns":5}'
import { startPolicyModelServer } from "@loclab/agent";

const { count = 1, ...options } = JSON.parse(process.argv[2] ?? "{}");
const servers = await Promise.all(Array.from({ length: count }, () => startPolicyModelServer(options)));
process.stdout.write(`${JSON.stringify(servers.map((server) => server.url))}\n`);
process.stdin.resume();
process.stdin.on("end", async () => {
  process.stdout.write(`${JSON.stringify({ peakInFlight: servers.map((server) => server.peakInFlight()) })}\n`);
  await Promise.all(servers.map((server) => server.close()));
  process.exit(0);
});
