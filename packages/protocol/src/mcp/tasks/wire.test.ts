import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from './store.js';
import { createTaskResult, detailedTask } from './wire.js';

const T0 = Date.parse('2026-11-28T12:00:00.000Z');

/** The record an update returned (it changed something). */
function changed<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the update changed nothing');
  return value;
}

async function task() {
  let now = T0;
  const store = new MemoryTaskStore({ now: () => now });
  const created = await store.create({ owner: 'a', ttlMs: 60_000, pollIntervalMs: 500 });
  return { store, created, later: () => (now += 1500) };
}

describe('tasks on the wire', () => {
  it('a CreateTaskResult is flat: resultType task, ISO times, ttlMs and pollIntervalMs, nothing else', async () => {
    const { created } = await task();
    expect(createTaskResult(created)).toEqual({
      resultType: 'task',
      taskId: created.taskId,
      status: 'working',
      createdAt: '2026-11-28T12:00:00.000Z',
      lastUpdatedAt: '2026-11-28T12:00:00.000Z',
      ttlMs: 60_000,
      pollIntervalMs: 500,
    });
  });

  it('tasks/get inlines the outcome that goes with the status, and only that', async () => {
    const { store, created, later } = await task();
    later();
    const asking = await store.ask(created.taskId, 'elicitation-1', {
      method: 'elicitation/create',
      params: {},
    });
    expect(detailedTask(changed(asking))).toMatchObject({
      resultType: 'complete',
      status: 'input_required',
      lastUpdatedAt: '2026-11-28T12:00:01.500Z',
      inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: {} } },
    });
    const result = { content: [{ type: 'text', text: 'no' }], isError: true };
    const done = await store.update(created.taskId, { status: 'completed', result });
    const wire = detailedTask(changed(done));
    expect(wire).toMatchObject({ status: 'completed', result });
    expect(wire).not.toHaveProperty('inputRequests');
    expect(wire).not.toHaveProperty('error');
    expect(wire).not.toHaveProperty('requestState');
  });

  it('a failed task carries its error and no result; a task kept for ever has ttlMs null', async () => {
    const store = new MemoryTaskStore();
    const t = await store.create({ owner: 'a', ttlMs: null });
    const failed = await store.update(t.taskId, {
      status: 'failed',
      error: { code: -32603, message: 'the worker died' },
    });
    const wire = detailedTask(changed(failed));
    expect(wire).toMatchObject({ status: 'failed', ttlMs: null, error: { code: -32603 } });
    expect(wire).not.toHaveProperty('result');
    expect(createTaskResult(t)).not.toHaveProperty('pollIntervalMs');
  });
});
