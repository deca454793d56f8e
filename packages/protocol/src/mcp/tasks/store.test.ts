import { describe, expect, it } from 'vitest';
import { MemoryTaskStore, TaskLimitError, type TaskRecord } from './store.js';

const ALICE = { owner: 'alice', ttlMs: 60_000 };

describe('MemoryTaskStore', () => {
  it('takes answers for the keys asked only, and stays input_required until every one is in', async () => {
    const store = new MemoryTaskStore();
    const { taskId } = await store.create(ALICE);
    await store.ask(taskId, 'a', { method: 'elicitation/create', params: { message: 'A?' } });
    await store.ask(taskId, 'b', { method: 'elicitation/create', params: { message: 'B?' } });
    const partial = await store.answer(taskId, 'alice', { a: { action: 'accept' }, zz: {} });
    expect(partial?.status).toBe('input_required');
    expect(Object.keys(partial?.inputRequests ?? {})).toEqual(['b']);
    expect(partial?.inputResponses).toEqual({ a: { action: 'accept' } });
    // Someone else's answer: the task does not exist for them, and nothing changes.
    expect(await store.answer(taskId, 'bob', { b: { action: 'accept' } })).toBeUndefined();
    expect((await store.get(taskId, 'alice'))?.status).toBe('input_required');
    const all = await store.answer(taskId, 'alice', { b: { action: 'decline' } });
    expect(all?.status).toBe('working');
    expect(all?.inputResponses).toEqual({ a: { action: 'accept' }, b: { action: 'decline' } });
    // A copy: changing what the caller got changes nothing stored.
    if (all?.inputResponses) all.inputResponses.c = 1;
    expect((await store.get(taskId, 'alice'))?.inputResponses).not.toHaveProperty('c');
    // Ended: the asks and answers go; a late answer is acknowledged, not applied.
    await store.update(taskId, { status: 'cancelled' });
    const ended = await store.answer(taskId, 'alice', { b: {} });
    expect(ended?.status).toBe('cancelled');
    expect(ended?.inputResponses).toBeUndefined();
    expect(await store.ask(taskId, 'c', { method: 'roots/list', params: {} })).toBeUndefined();
  });

  it('makes working tasks with unguessable ids, each seen by its owner only', async () => {
    const store = new MemoryTaskStore();
    const a = await store.create(ALICE);
    const b = await store.create(ALICE);
    expect(a.status).toBe('working');
    expect(a.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.taskId).not.toBe(b.taskId);
    expect((await store.get(a.taskId, 'alice'))?.taskId).toBe(a.taskId);
    expect(await store.get(a.taskId, 'bob')).toBeUndefined();
    expect(await store.get(a.taskId, '')).toBeUndefined();
    expect(await store.get('no-such-task', 'alice')).toBeUndefined();
  });

  it('moves a task between working and input_required, then to one terminal status for good', async () => {
    const store = new MemoryTaskStore();
    const { taskId } = await store.create(ALICE);
    const asked = await store.ask(taskId, 'elicitation-1', {
      method: 'elicitation/create',
      params: {},
    });
    expect(asked?.status).toBe('input_required');
    expect(asked?.inputRequests).toEqual({
      'elicitation-1': { method: 'elicitation/create', params: {} },
    });
    // Answered: back to work, the answer kept for the process running it.
    const working = await store.answer(taskId, 'alice', { 'elicitation-1': { action: 'accept' } });
    expect(working?.status).toBe('working');
    expect(working?.inputRequests).toBeUndefined();
    expect(working?.inputResponses).toEqual({ 'elicitation-1': { action: 'accept' } });
    const done = await store.update(taskId, {
      status: 'completed',
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
    expect(done?.status).toBe('completed');
    expect(await store.update(taskId, { status: 'failed' })).toBeUndefined();
    expect(await store.update(taskId, { status: 'cancelled' })).toBeUndefined();
    expect((await store.get(taskId, 'alice'))?.status).toBe('completed');
  });

  it('keeps a task for its ttlMs, then forgets it', async () => {
    let now = 1_000_000;
    const store = new MemoryTaskStore({ now: () => now });
    const { taskId } = await store.create({ owner: 'alice', ttlMs: 5_000 });
    now += 4_999;
    expect(await store.get(taskId, 'alice')).toBeDefined();
    now += 1;
    expect(await store.get(taskId, 'alice')).toBeUndefined();
    expect(await store.update(taskId, { status: 'completed' })).toBeUndefined();
    const kept = await store.create({ owner: 'alice', ttlMs: null });
    now += 365 * 86_400_000;
    expect(await store.get(kept.taskId, 'alice')).toBeDefined();
    expect(await store.sweep()).toBe(0);
  });

  it('bounds the unfinished tasks of each identity, and frees a place when one ends', async () => {
    let now = 0;
    const store = new MemoryTaskStore({ maxActivePerOwner: 2, now: () => now });
    const first = await store.create(ALICE);
    await store.create(ALICE);
    await expect(store.create(ALICE)).rejects.toBeInstanceOf(TaskLimitError);
    // Another identity has its own bound.
    await store.create({ owner: 'bob', ttlMs: 60_000 });
    await store.update(first.taskId, { status: 'cancelled' });
    const third = await store.create(ALICE);
    // An expired unfinished task frees its place too.
    now += 60_000;
    expect(await store.get(third.taskId, 'alice')).toBeUndefined();
    await store.create(ALICE);
    expect(await store.sweep()).toBeGreaterThanOrEqual(0);
  });

  it('tells its watchers of every change, and a watcher that throws changes nothing', async () => {
    const store = new MemoryTaskStore();
    const seen: TaskRecord['status'][] = [];
    store.watch(() => {
      throw new Error('a broken watcher');
    });
    const stop = store.watch((task) => seen.push(task.status));
    const { taskId } = await store.create(ALICE);
    await store.update(taskId, { status: 'completed', result: { content: [] } });
    stop();
    await store.create(ALICE);
    expect(seen).toEqual(['working', 'completed']);
    expect((await store.get(taskId, 'alice'))?.status).toBe('completed');
  });

  it('hands out copies: a caller changing one changes nothing stored', async () => {
    const store = new MemoryTaskStore();
    const task = await store.create(ALICE);
    task.status = 'failed';
    expect((await store.get(task.taskId, 'alice'))?.status).toBe('working');
  });

  it('bounds the tasks one identity keeps, finished ones too, until the expired ones go', async () => {
    let now = 0;
    const store = new MemoryTaskStore({ maxStoredPerOwner: 3, now: () => now });
    for (let i = 0; i < 3; i++) {
      const { taskId } = await store.create({ owner: 'alice', ttlMs: 1000 });
      await store.update(taskId, { status: 'completed', result: { content: [] } });
    }
    const refused = await store.create({ owner: 'alice', ttlMs: 1000 }).catch((e: unknown) => e);
    expect(TaskLimitError.is(refused)).toBe(true);
    await store.create({ owner: 'bob', ttlMs: 1000 });
    // Expired: swept at the bound, and the place is free.
    now = 1000;
    expect((await store.create({ owner: 'alice', ttlMs: 1000 })).owner).toBe('alice');
  });
});
