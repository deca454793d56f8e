#!/usr/bin/env node
// Cold start: the stdio backends are spawned before the gateway itself is loaded, so they boot
// while it does (see prestart.ts). Only prestart's small module graph is imported statically;
// the rest comes with serve.js, after the spawn.
import { prestartBackends, releasePrestarted } from './prestart.js';

prestartBackends();
try {
  await import('./serve.js');
} finally {
  // serve.js failed to load, or runCli threw before a backend took its early child: the children
  // are stopped, not left to the parent-death signal (Linux only) or to their stdin's EOF.
  await releasePrestarted();
}
