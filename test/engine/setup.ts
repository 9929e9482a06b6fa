// Locates llama-server once for the whole tier, building it when this machine has no build yet
// (10-15 minutes on 2 cores; then cached per user by scripts/build-llama-server.sh).
import { locateLlamaServer } from './support/llama-server.js';

export default function setup(): void {
  process.env.RCA_LLAMA_SERVER = locateLlamaServer();
}
