import { describe, expect, it } from 'vitest';
import { isSecretName, redact } from './redact.js';

const R = '[REDACTED]';

describe('redact: secret flags', () => {
  it.each([
    ['--password=hunter2', `--password=${R}`],
    ['--password hunter2', `--password ${R}`],
    ['-password=hunter2', `-password=${R}`],
    ['--db-password=hunter2 --verbose', `--db-password=${R} --verbose`],
    ['--token=abc123', `--token=${R}`],
    ['--token abc123 --port 8080', `--token ${R} --port 8080`],
    ['--api-key=sk_live_abc', `--api-key=${R}`],
    ['--api_key sk_live_abc', `--api_key ${R}`],
    ['--apikey sk_live_abc', `--apikey ${R}`],
    ['--client-secret=s3cr3t', `--client-secret=${R}`],
    ['--passwd   hunter2', `--passwd   ${R}`],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('removes a quoted value whole, spaces included', () => {
    expect(redact('mysql --password="hunter 2" -u root')).toBe(`mysql --password=${R} -u root`);
    expect(redact("mysql --password 'hunter 2' -u root")).toBe(`mysql --password ${R} -u root`);
    expect(redact('app --api-key="a b c" --token \'d e\'')).toBe(`app --api-key=${R} --token ${R}`);
  });

  it('is case-insensitive in the flag name', () => {
    expect(redact('tool --PASSWORD=hunter2')).toBe(`tool --PASSWORD=${R}`);
    expect(redact('tool --Api-Key XYZ')).toBe(`tool --Api-Key ${R}`);
  });
});

describe('redact: KEY=value', () => {
  it.each([
    ['TOKEN=abc', `TOKEN=${R}`],
    ['DB_PASSWORD=s3cret ./run.sh', `DB_PASSWORD=${R} ./run.sh`],
    ['GITHUB_TOKEN=abc123 API_KEY=xyz node app.js', `GITHUB_TOKEN=${R} API_KEY=${R} node app.js`],
    ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG', `AWS_SECRET_ACCESS_KEY=${R}`],
    ['MYSQL_PWD=hunter2 mysqldump', `MYSQL_PWD=${R} mysqldump`],
    ['password: hunter2', `password: ${R}`],
    ['PASSWORD="hunter 2" ./start', `PASSWORD=${R} ./start`],
    ["secret='x y z'", `secret=${R}`],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('stops a value at &, ; and , so neighbouring parameters survive', () => {
    expect(redact('GET /cb?token=abc123&state=ok')).toBe(`GET /cb?token=${R}&state=ok`);
    expect(redact('USER=root ; password=hunter2 ; TTY=pts/0')).toBe(
      `USER=root ; password=${R} ; TTY=pts/0`,
    );
  });
});

describe('redact: credentials in URLs', () => {
  it.each([
    ['postgres://u:pw@h/db', `postgres://u:${R}@h/db`],
    [
      'psql postgresql://app:s3cr3t@db.internal:5432/prod',
      `psql postgresql://app:${R}@db.internal:5432/prod`,
    ],
    [
      'git clone https://bob:ghs_short@github.com/o/r.git',
      `git clone https://bob:${R}@github.com/o/r.git`,
    ],
    [
      'redis-cli -u redis://default:p%40ss@cache:6379',
      `redis-cli -u redis://default:${R}@cache:6379`,
    ],
  ])('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('leaves a URL without a password alone', () => {
    const lines = ['curl https://example.com/path?q=1', 'ssh://git@github.com/o/r.git'];
    for (const line of lines) expect(redact(line)).toBe(line);
  });
});

describe('redact: bearer and basic credentials', () => {
  it('removes the credential after Bearer and Basic', () => {
    expect(redact('curl -H Bearer abcdefgh12345678 https://api')).toBe(
      `curl -H Bearer ${R} https://api`,
    );
    expect(redact('wget --header=X Basic dXNlcjpwYXNzd29yZA== https://h')).toBe(
      `wget --header=X Basic ${R} https://h`,
    );
  });

  it('needs a credential-like word of at least 8 characters after the scheme', () => {
    expect(redact('the Bearer of bad news')).toBe('the Bearer of bad news');
    expect(redact('Basic auth is off')).toBe('Basic auth is off');
  });
});

describe('redact: well-known key formats', () => {
  it('AWS access key ids', () => {
    expect(redact('aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE')).toBe(
      `aws configure set aws_access_key_id ${R}`,
    );
    expect(redact('key ASIAY34FZKBOKMUTVV7A used')).toBe(`key ${R} used`);
  });

  it('GitHub tokens', () => {
    const ghp = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    expect(redact(`git push https://x-access@github.com ${ghp}`)).toBe(
      `git push https://x-access@github.com ${R}`,
    );
    expect(redact(`gh auth status ${ghp} done`)).not.toContain(ghp);
  });

  it('Slack tokens', () => {
    expect(redact('notify xoxb-1234567890-abcdefghij')).toBe(`notify ${R}`);
  });

  it('JWTs', () => {
    const jwt =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    expect(redact(`curl -d ${jwt} https://api`)).toBe(`curl -d ${R} https://api`);
  });

  it('PEM private key blocks, whole', () => {
    const pem = [
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEowIBAAKCAQEA7bq98xJz1fR0+abc',
      'K2Vy8mQ0Z3J6dW5kZXJsaW5lcw==',
      '-----END RSA PRIVATE KEY-----',
    ].join('\n');
    expect(redact(`before\n${pem}\nafter`)).toBe(`before\n${R}\nafter`);
    const pkcs8 =
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';
    expect(redact(pkcs8)).toBe(R);
  });

  it('a PEM block cut off before its END line is removed to the end of the text', () => {
    const out = redact('key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA');
    expect(out).not.toContain('b3BlbnNzaC1rZXktdjEAAAAA');
  });
});

describe('redact: ordinary text is unchanged', () => {
  it.each([
    'node server.js --port 3000',
    'postgres -D /var/lib/postgresql',
    '/usr/lib/postgresql/16/bin/postgres -D /var/lib/postgresql/16/main -c config_file=/etc/postgresql/16/main/postgresql.conf',
    'nginx: worker process',
    '/usr/sbin/sshd -D',
    '/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock',
    'python3 -m http.server 8080',
    'java -Xmx4g -jar app.jar',
    'Jan  2 08:57:00 web-01 sshd[2100]: Failed password for invalid user admin',
    'Jan  2 08:00:00 web-01 sshd[2000]: Accepted publickey for alice from 10.0.0.7 port 50000 ssh2',
    '',
  ])('%j', (line) => {
    expect(redact(line)).toBe(line);
  });

  it('redacts every secret of a line, not only the first', () => {
    const out = redact('postgres --password=hunter2 postgres://u:pw@h/db TOKEN=abc');
    expect(out).toBe(`postgres --password=${R} postgres://u:${R}@h/db TOKEN=${R}`);
    for (const secret of ['hunter2', ':pw@', '=abc']) expect(out).not.toContain(secret);
  });

  it('gives the same answer when called again (no state between calls)', () => {
    const line = '--token=abc TOKEN=def';
    expect(redact(line)).toBe(redact(line));
    expect(redact(redact(line))).toBe(redact(line));
  });
});

describe('redact: headers, JSON and look-alikes', () => {
  it('keeps the scheme word of an Authorization header and removes the credential', () => {
    expect(redact('curl -H "Authorization: Bearer abcdefgh12345678" https://api')).toBe(
      'curl -H "Authorization: Bearer [REDACTED]" https://api',
    );
    expect(redact('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe(
      'Authorization: Basic [REDACTED]',
    );
  });

  it('redacts JSON-style secrets', () => {
    expect(redact('{"password": "hunter2", "user": "x"}')).toBe(
      '{"password": "[REDACTED]", "user": "x"}',
    );
    expect(redact('{"api_key":"k-1"}')).toBe('{"api_key":"[REDACTED]"}');
  });

  it('leaves PWD, negated flags and a following flag alone', () => {
    expect(redact('sudo: alice : PWD=/home/alice ; USER=root')).toBe(
      'sudo: alice : PWD=/home/alice ; USER=root',
    );
    expect(redact('psql --no-password -h db')).toBe('psql --no-password -h db');
    expect(redact('password="two words" next')).toBe('password=[REDACTED] next');
  });
});

describe('isSecretName', () => {
  it('knows the fields that hold secrets by their names, in any casing and separators', () => {
    for (const name of [
      'password',
      'db_password',
      'PGPASSWORD',
      'apiKey',
      'api-key',
      'X-Auth-Token',
      'access_token',
      'client_secret',
      'Authorization',
      'auth',
      'credentials',
      'session_id',
      'Cookie',
      'private_key',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it('leaves fields that only contain such a word, or name how to authenticate', () => {
    for (const name of [
      'author',
      'authority',
      'token_count',
      'passenger',
      'password_hint',
      'PWD',
      'authSource',
      'auth_method',
      'service',
    ]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});
