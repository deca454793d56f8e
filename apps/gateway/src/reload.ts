import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '@mcpkit/node';
import { ConfigError, type GatewayConfig, loadConfig } from './config.js';
import type { Gateway } from './gateway.js';

/** How long a burst of file events settles before the config is read (editors write in steps). */
const SETTLE_MS = 150;

/**
 * Reload the gateway when its config file changes or the process gets `SIGHUP`: a valid new
 * config is applied ({@link Gateway.reload}); an invalid one is refused — logged with its reason
 * and recorded as `gateway.reload_failed` — and the running config stays. A `SIGHUP`
 * (`systemctl reload`) also starts again the backends that were given up: what an operator
 * fixed outside the config (a package installed, a server back up) is tried again. The directory is
 * watched, not the file: editors and `mv` replace the file, which ends a watch on it. Returns
 * the stop function.
 */
export function watchConfig(
  gateway: Gateway,
  file: string,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
  onConfig?: (config: GatewayConfig) => void,
): () => void {
  const path = resolve(file);
  const name = basename(path);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let last = '';

  const apply = (reason: string) => {
    running = running.then(async () => {
      let config: ReturnType<typeof loadConfig>;
      try {
        config = loadConfig(path, env);
      } catch (err) {
        const message = err instanceof ConfigError ? err.message : String(err);
        // A file seen half-written by the watcher fails the same way: only a change is news.
        if (message === last) return;
        last = message;
        logger.error({ config: path, reason }, `config not reloaded: ${message}`);
        gateway.events.record({
          event_type: 'gateway.reload_failed',
          status: 'failure',
          source: gateway.config.gateway.name,
          data: { config: path, reason, error: message },
        });
        return;
      }
      last = '';
      // What the caller applies itself (the tokens), before the backends change.
      onConfig?.(config);
      const summary = await gateway.reload(config);
      logger.info({ config: path, reason, ...summary }, 'config reloaded');
      if (reason === 'SIGHUP') await retryFailed(gateway, logger);
      if (summary.ignored.length > 0) {
        logger.warn(
          { sections: summary.ignored },
          'config: the gateway section is read at start only; restart to apply it',
        );
      }
    });
  };
  const schedule = (reason: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => apply(reason), SETTLE_MS);
    timer.unref();
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), (_event, changed) => {
      if (changed === null || changed === name) schedule('file changed');
    });
    watcher.on('error', (err) => logger.warn({ err, config: path }, 'config watch failed'));
    watcher.unref();
  } catch (err) {
    logger.warn({ err, config: path }, 'config not watched; SIGHUP still reloads it');
  }
  const onHup = () => schedule('SIGHUP');
  process.on('SIGHUP', onHup);
  return () => {
    clearTimeout(timer);
    watcher?.close();
    process.off('SIGHUP', onHup);
  };
}

/**
 * SIGHUP without a config file: the given-up backends are started again, nothing is re-read (the
 * default action would end the process).
 */
export function retryOnHangup(gateway: Gateway, logger: Logger): () => void {
  let running: Promise<void> = Promise.resolve();
  const onHup = () => {
    logger.info('SIGHUP: no --config file to reload; retrying failed backends');
    running = running.then(() => retryFailed(gateway, logger));
  };
  process.on('SIGHUP', onHup);
  return () => process.off('SIGHUP', onHup);
}

async function retryFailed(gateway: Gateway, logger: Logger): Promise<void> {
  const retried = await gateway.retryFailed();
  if (retried.length === 0) return;
  const states = Object.fromEntries(
    retried.map((name) => [name, gateway.backends.get(name)?.state]),
  );
  logger.info({ backends: states }, `retried failed backends: ${retried.join(', ')}`);
}
