/** The error of a design-token build that cannot be made: a result, never a crash. */

const BUILD_ERROR = Symbol.for('mcpkit.projects.TokenBuildError');

/** Why a build could not be made (a token the platform cannot name or write). */
export class TokenBuildError extends Error {
  readonly [BUILD_ERROR] = true;
  /** The token the problem is with, if one. */
  readonly path: string | undefined;
  constructor(message: string, path?: string) {
    super(path === undefined ? message : `${path}: ${message}`);
    this.name = 'TokenBuildError';
    this.path = path;
  }
  /** Whether `error` is a TokenBuildError (by brand, across package copies). */
  static is(error: unknown): error is TokenBuildError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { [BUILD_ERROR]?: unknown })[BUILD_ERROR] === true
    );
  }
}
