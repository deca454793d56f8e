import { describe, expect, it } from 'vitest';
import { fill, launchOf, RegistryEntryError, type ServerDetail } from './server-json.js';

const detail = (extra: Partial<ServerDetail>): ServerDetail => ({
  name: 'io.github.acme/weather',
  description: 'Weather',
  version: '1.2.3',
  ...extra,
});
const npm = {
  registryType: 'npm',
  identifier: '@acme/weather',
  version: '1.2.3',
  transport: { type: 'stdio' },
};
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(RegistryEntryError.is(err)).toBe(true);
    return (err as Error).message;
  }
  throw new Error('did not throw');
};

describe('fill', () => {
  it('takes the fixed value with its variables, else the input, else the default', () => {
    const header = {
      value: 'Bearer {token} {unknown}',
      variables: { token: { isRequired: true } },
    };
    expect(fill(header, 'Authorization', { token: 's3cret' }, 'e')).toBe('Bearer s3cret {unknown}');
    expect(fill({ default: 'eu' }, 'REGION', {}, 'e')).toBe('eu');
    expect(fill({ default: 'eu' }, 'REGION', { REGION: 'us' }, 'e')).toBe('us');
    expect(fill({}, 'OPTIONAL', {}, 'e')).toBeUndefined();
  });

  it('refuses a required input nobody gave, and a value outside the choices', () => {
    expect(
      refusal(() => fill({ isRequired: true, description: 'Your key' }, 'API_KEY', {}, 'x@1')),
    ).toBe(`x@1 needs the input 'API_KEY' (Your key): give it in the backend's "inputs"`);
    expect(
      refusal(() =>
        fill(
          { value: 'Bearer {token}', variables: { token: { isRequired: true } } },
          'h',
          {},
          'x@1',
        ),
      ),
    ).toContain("needs the input 'token'");
    expect(refusal(() => fill({ choices: ['a', 'b'] }, 'MODE', { MODE: 'c' }, 'x@1'))).toBe(
      "x@1: input 'MODE' is 'c', not one of a, b",
    );
  });
});

describe('launchOf', () => {
  it('runs an npm package with npx: its runtime flags, -y, the package, then its arguments', () => {
    const launch = launchOf(
      detail({
        packages: [
          {
            ...npm,
            registryBaseUrl: 'https://npm.internal.example/',
            runtimeArguments: [
              { type: 'named', name: '--prefer-offline', format: 'boolean', value: 'true' },
            ],
            packageArguments: [
              { type: 'positional', valueHint: 'mode', value: 'stdio' },
              { type: 'named', name: '--units', default: 'metric' },
              { type: 'named', name: '--verbose', format: 'boolean' },
              { type: 'named', name: '--debug', format: 'boolean' },
              { type: 'named', name: '--city' },
            ],
            environmentVariables: [
              { name: 'WEATHER_KEY', isRequired: true, isSecret: true },
              { name: 'UNSET' },
            ],
          },
        ],
      }),
      { WEATHER_KEY: 'k', '--verbose': 'true', '--debug': 'false' },
    );
    expect(launch).toEqual({
      kind: 'package',
      command: 'npx',
      args: [
        '--prefer-offline',
        '-y',
        '--registry=https://npm.internal.example/',
        '@acme/weather@1.2.3',
        'stdio',
        '--units',
        'metric',
        '--verbose',
      ],
      env: { WEATHER_KEY: 'k' },
    });
  });

  it('runs a streamable-http remote with its URL variables and headers filled in', () => {
    const launch = launchOf(
      detail({
        remotes: [
          { type: 'sse', url: 'https://old.example/sse' },
          {
            type: 'streamable-http',
            url: 'https://{tenant}.example.com/mcp',
            variables: { tenant: { isRequired: true } },
            headers: [{ name: 'X-Key', isRequired: true, isSecret: true }],
          },
        ],
      }),
      { tenant: 'acme', 'X-Key': 'secret' },
    );
    expect(launch).toEqual({
      kind: 'remote',
      url: 'https://acme.example.com/mcp',
      headers: { 'X-Key': 'secret' },
    });
  });

  it('prefers the package, or the remote when told to; refuses what it cannot run', () => {
    const both = detail({
      packages: [npm],
      remotes: [{ type: 'streamable-http', url: 'https://x.example/mcp' }],
    });
    expect(launchOf(both, {}).kind).toBe('package');
    expect(launchOf(both, {}, 'remote').kind).toBe('remote');
    expect(refusal(() => launchOf(detail({ packages: [npm] }), {}, 'remote'))).toBe(
      'io.github.acme/weather@1.2.3 has no streamable-http remote (prefer: "remote")',
    );
    const pypi = detail({
      packages: [{ registryType: 'pypi', identifier: 'weather', transport: { type: 'stdio' } }],
    });
    expect(refusal(() => launchOf(pypi, {}))).toBe(
      'io.github.acme/weather@1.2.3 offers nothing this gateway can run: no npm package over stdio and no streamable-http remote (a pypi package (this gateway runs npm packages))',
    );
    expect(refusal(() => launchOf(pypi, {}, 'package'))).toContain('it has a pypi package');
    const httpPackage = detail({ packages: [{ ...npm, transport: { type: 'streamable-http' } }] });
    expect(refusal(() => launchOf(httpPackage, {}))).toContain(
      'an npm package over streamable-http',
    );
    expect(
      refusal(() =>
        launchOf(
          detail({
            remotes: [
              { type: 'streamable-http', url: 'ftp://{h}/x', variables: { h: { default: 'a' } } },
            ],
          }),
          {},
        ),
      ),
    ).toBe("io.github.acme/weather@1.2.3: its remote URL 'ftp://a/x' is not http(s)");
    expect(
      refusal(() =>
        launchOf(detail({ remotes: [{ type: 'streamable-http', url: 'not a url' }] }), {}),
      ),
    ).toContain('is not a URL once filled in');
  });
});
