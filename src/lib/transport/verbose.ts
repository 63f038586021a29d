// --verbose: each request and response on stderr. Transports never see the API key here; the
// HTTP transport adds it itself, so it cannot leak into this log.
import type { Transport } from './types.js';

export function verbose(transport: Transport, log: (line: string) => void): Transport {
  return {
    mode: transport.mode,
    async request(request) {
      const started = performance.now();
      const query = new URLSearchParams(
        Object.entries(request.query ?? {})
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)]),
      );
      log(`> ${request.method} ${request.path}${query.size ? `?${decodeURIComponent(query.toString())}` : ''}\n`);
      if (request.body !== undefined) log(`> ${JSON.stringify(request.body)}\n`);
      const response = await transport.request(request);
      log(`< ${response.status} (${Math.round(performance.now() - started)} ms)\n`);
      if (response.body !== undefined) log(`< ${JSON.stringify(response.body)}\n`);
      return response;
    },
    close: () => transport.close(),
  };
}
