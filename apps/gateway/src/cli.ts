#!/usr/bin/env node
// Cold start: the stdio backends are spawned before the gateway itself is loaded, so they boot
// while it does (see prestart.ts). Only prestart's small module graph is imported statically;
// the rest comes with serve.js, after the spawn.
import { prestartBackends } from './prestart.js';

prestartBackends();
await import('./serve.js');
