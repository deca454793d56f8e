import type { EngineLogger } from '@mcpkit/protocol';

/** The engine's logger, with pino's `info` where the app has it (routine events: an alert cleared). */
export type AppLogger = EngineLogger & { info?: (obj: object, msg?: string) => void };
