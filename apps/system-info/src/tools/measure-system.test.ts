/**
 * measure_system: readings over a window of time — a task for a 2026-07-28 client that declared
 * the tasks extension (polled, cancellable), an ordinary call for anyone else.
 */
import { META, TASKS_EXTENSION } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { normalMachine, normalValues, withValue } from '../../test/fixtures.js';
import { createSystemInfoServer } from '../server.js';
import { summarize } from './measure-system.js';

const modern = (params: Record<string, unknown>, tasks = true) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
    [META.clientInfo]: { name: 'measure-test', version: '1' },
  },
});

type Task = {
  resultType: string;
  taskId: string;
  status: string;
  statusMessage?: string;
  result?: { structuredContent: Measured };
};
type Measured = {
  metric: string;
  readings: { value: number | null }[];
  min: number | null;
  avg: number | null;
  max: number | null;
  p95: number | null;
};

let peer: RawPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

function connect(): RawPeer {
  const { server } = createSystemInfoServer({ collectors: normalMachine(), warm: false });
  peer = connectRaw(server);
  return peer;
}

describe('summarize', () => {
  it('gives min, mean, max and p95 of the known readings', () => {
    expect(summarize([10, null, 30, 20])).toEqual({ min: 10, avg: 20, max: 30, p95: 30 });
    expect(summarize(Array.from({ length: 100 }, (_, i) => i + 1))).toMatchObject({ p95: 95 });
    expect(summarize([null])).toEqual({ min: null, avg: null, max: null, p95: null });
  });
});

describe('measure_system', () => {
  it('runs as a task for a client that declared tasks: polled to its readings', async () => {
    const p = connect();
    const raw = normalValues().cpuLoad.total_percent ?? 0;
    const cpu = Math.round(raw * 10) / 10;
    const created = await p.result<Task>(
      'tools/call',
      modern({
        name: 'measure_system',
        arguments: { metric: 'cpu', window_seconds: 2, interval_seconds: 2 },
      }),
    );
    expect(created.resultType).toBe('task');
    const done = await waitFor(
      'measured',
      async () => {
        const task = await p.result<Task>('tasks/get', modern({ taskId: created.taskId }));
        return task.status === 'completed' ? task : undefined;
      },
      30_000,
      50,
    );
    expect(done.statusMessage).toBe('cpu: 2 of 2 readings');
    expect(done.result?.structuredContent).toMatchObject({
      metric: 'cpu',
      readings: [{ value: cpu }, { value: cpu }],
      min: cpu,
      max: cpu,
    });
  });

  it('stops when its task is cancelled', async () => {
    const p = connect();
    const created = await p.result<Task>(
      'tools/call',
      modern({ name: 'measure_system', arguments: { metric: 'memory', window_seconds: 3600 } }),
    );
    await p.result('tasks/cancel', modern({ taskId: created.taskId }));
    expect((await p.result<Task>('tasks/get', modern({ taskId: created.taskId }))).status).toBe(
      'cancelled',
    );
  });

  it('is an ordinary call for a client without tasks, and a 2025 session', async () => {
    const { server } = createSystemInfoServer({
      collectors: withValue(normalMachine(), 'memory', { ...normalValues().memory }),
      warm: false,
    });
    peer = connectRaw(server);
    const args = { metric: 'memory', window_seconds: 2, interval_seconds: 2 };
    const plain = await peer.result<{ structuredContent: Measured; resultType: string }>(
      'tools/call',
      modern({ name: 'measure_system', arguments: args }, false),
    );
    expect(plain.resultType).toBe('complete');
    expect(plain.structuredContent.readings).toHaveLength(2);
    await peer.initialize();
    const legacy = await peer.callTool('measure_system', args);
    expect(legacy.result?.structuredContent).toMatchObject({ metric: 'memory' });
  });

  it('refuses a window beyond an hour and an interval below 2 s, as the model can read', async () => {
    const p = connect();
    await p.initialize();
    for (const args of [
      { metric: 'cpu', window_seconds: 3601 },
      { metric: 'cpu', window_seconds: 10, interval_seconds: 1 },
      { metric: 'disk', window_seconds: 10 },
    ]) {
      const reply = await p.callTool('measure_system', args);
      expect(reply.result?.isError).toBe(true);
    }
  });
});
