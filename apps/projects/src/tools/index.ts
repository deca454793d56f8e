import type { Tool } from '@mcpkit/protocol';
import { buildDesignTokens } from './build-design-tokens.js';
import { checkColorContrast } from './check-color-contrast.js';
import type { ToolDeps } from './common.js';
import { createBlock } from './create-block.js';
import { createProject } from './create-project.js';
import { deleteBlock } from './delete-block.js';
import { deleteProject } from './delete-project.js';
import { diffDesignTokens } from './diff-design-tokens.js';
import { exportProject } from './export-project.js';
import { getAsset } from './get-asset.js';
import { getBlock } from './get-block.js';
import { getDesignSystem } from './get-design-system.js';
import { getProject } from './get-project.js';
import { listAssets } from './list-assets.js';
import { listBlocks } from './list-blocks.js';
import { listDesignTokenVersions } from './list-design-token-versions.js';
import { listProjects } from './list-projects.js';
import { restoreDesignTokens } from './restore-design-tokens.js';
import { updateBlock } from './update-block.js';
import { updateDesignTokenModes } from './update-design-token-modes.js';
import { updateDesignTokens } from './update-design-tokens.js';
import { updateProject } from './update-project.js';

export function allTools(deps: ToolDeps): Tool[] {
  return [
    listProjects,
    getProject,
    createProject,
    updateProject,
    deleteProject,
    listBlocks,
    getBlock,
    createBlock,
    updateBlock,
    deleteBlock,
    listAssets,
    getAsset,
    getDesignSystem,
    updateDesignTokens,
    updateDesignTokenModes,
    buildDesignTokens,
    checkColorContrast,
    listDesignTokenVersions,
    diffDesignTokens,
    restoreDesignTokens,
    exportProject,
  ].map((make) => make(deps));
}
