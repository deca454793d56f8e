import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CollectorTimeoutError } from '../sampler/errors.js';
import {
  CORE,
  query,
  queryCause,
  READ_ONLY,
  sampledAt,
  type ToolDeps,
  unavailableReason,
} from './common.js';

const NETWORK_FS = /^(nfs\d?|cifs|smb\w*|sshfs|fuse\.sshfs|9p|glusterfs|ceph(fs)?|afs)$/i;

export const filesystemShape = z.object({
  filesystem: z.string(),
  type: z.string(),
  mount: z.string(),
  size_bytes: z.number(),
  used_bytes: z.number(),
  available_bytes: z.number(),
  use_percent: z.number().nullable(),
  read_only: z.boolean(),
  network: z.boolean(),
});

export const getDiskInfo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_disk_info',
    title: 'Disks',
    description:
      'Returns mounted filesystems with size, usage and type. A hung network mount cannot stall it: disk usage is time-boxed to 5 s.',
    outputSchema: z.object({
      filesystems: z.array(filesystemShape).nullable(),
      unavailable_reason: unavailableReason,
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Disks', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      try {
        const fs = await query(deps, 'filesystems');
        return {
          filesystems: fs.value.map((f) => ({ ...f, network: NETWORK_FS.test(f.type) })),
          unavailable_reason: null,
          sampled_at: fs.sampledAt,
        };
      } catch (err) {
        // A timeout is an answer the caller can use, not a failure of the whole query.
        const cause = queryCause(err);
        if (cause instanceof CollectorTimeoutError) {
          return {
            filesystems: null,
            unavailable_reason: cause.message,
            sampled_at: new Date().toISOString(),
          };
        }
        throw err;
      }
    },
  });
