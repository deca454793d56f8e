// Stores: what several instances share — sessions, stream replay, rate-limit buckets, secrets

// Fleet: membership, and notifications that reach every instance's subscribers
export { type FleetNotifier, type SubscriberMatch, shareNotifications } from './notify.js';
export {
  createPostgresTaskStore,
  type PostgresTaskStore,
  type PostgresTaskStoreOptions,
} from './postgres-tasks.js';
export {
  clearRedisPrefix,
  createRedisStateStore,
  RedisStateStore,
  type RedisStateStoreOptions,
} from './redis.js';
export {
  createRedisTaskStore,
  RedisTaskStore,
  type RedisTaskStoreOptions,
} from './redis-tasks.js';
export {
  type FleetMember,
  type FleetMembership,
  type JoinFleetOptions,
  joinFleet,
} from './registry.js';
export {
  type AppendOptions,
  MemoryStateStore,
  memoryRateLimiter,
  type SessionRecord,
  type StateStore,
  type StoredEvents,
  type StoreRateLimitOptions,
  StoreUnavailableError,
} from './store.js';
