import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

const R = '[REDACTED]';
/** A line that must come out exactly as it went in. */
const same = (line: string): [string, string] => [line, line];

/**
 * Command lines of well-known tools that take a secret as an argument (command line → what
 * `redact` answers), then look-alikes that hold none. Each secret below is a real form of the
 * tool's own options; see the README's "Redaction" section for the list.
 */
const TABLE: [string, string][] = [
  // mysql, mariadb and their dump/admin tools: -p<pw>, -p <pw>, --password=<pw>, --password <pw>
  ['mysql -u root -phunter2 app', `mysql -u root -p${R} app`],
  ['mysql -u root -p hunter2', `mysql -u root -p ${R}`],
  ['mysql -uphil -ph4x app', `mysql -uphil -p${R} app`],
  [
    "mysqldump -uroot -p'hunter 2' --single-transaction app",
    `mysqldump -uroot -p${R} --single-transaction app`,
  ],
  ['mariadb --user=root --password=hunter2 app', `mariadb --user=root --password=${R} app`],
  ['mariadb-dump --password hunter2 app', `mariadb-dump --password ${R} app`],
  ['/usr/bin/mysqladmin -u root -phunter2 status', `/usr/bin/mysqladmin -u root -p${R} status`],
  ['mysqladmin -u root -p password n3wpass', `mysqladmin -u root -p password ${R}`],
  same('mysqladmin -u root -p processlist'),
  [
    '"C:\\Program Files\\MySQL\\MySQL Server 8.0\\bin\\mysql.exe" -u root -phunter2',
    `"C:\\Program Files\\MySQL\\MySQL Server 8.0\\bin\\mysql.exe" -u root -p${R}`,
  ],
  [
    'Jan  2 08:58:00 web-01 sudo: alice : TTY=pts/0 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/mysql -u root -phunter2',
    `Jan  2 08:58:00 web-01 sudo: alice : TTY=pts/0 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/mysql -u root -p${R}`,
  ],
  [
    'sh -c "mysql -uroot -phunter2 app < /tmp/q.sql"',
    `sh -c "mysql -uroot -p${R} app < /tmp/q.sql"`,
  ],
  [
    'mysql -u root -phunter2; redis-cli -a s3cret ping | grep PONG',
    `mysql -u root -p${R}; redis-cli -a ${R} ping | grep PONG`,
  ],
  same('mysql -h db -P 3306 -u root -p'),
  same('mysql -p -u root app'),

  // redis-cli, valkey-cli, redis-benchmark: -a <pw>, --pass <pw>, --askpass (prompts, takes none)
  ['redis-cli -h cache -a hunter2 ping', `redis-cli -h cache -a ${R} ping`],
  ['redis-cli --user app --pass hunter2 -h cache', `redis-cli --user app --pass ${R} -h cache`],
  ['valkey-cli -a hunter2 --no-auth-warning info', `valkey-cli -a ${R} --no-auth-warning info`],
  ['redis-benchmark -h cache -a hunter2 -q', `redis-benchmark -h cache -a ${R} -q`],
  [
    'redis-cli -u redis://:hunter2@cache:6379/0 ping',
    `redis-cli -u redis://:${R}@cache:6379/0 ping`,
  ],
  same('redis-cli -h cache --askpass GET key'),

  // sshpass: -p <pw>, -p<pw>; -P is the prompt to wait for, -f a file: not secrets
  ['sshpass -p hunter2 ssh -p 2222 alice@host', `sshpass -p ${R} ssh -p 2222 alice@host`],
  ['sshpass -phunter2 scp -P 2222 f host:', `sshpass -p${R} scp -P 2222 f host:`],
  ['sshpass -P Password: -p hunter2 ssh host', `sshpass -P Password: -p ${R} ssh host`],
  ['sshpass -v -p hunter2 rsync -a src host:dst', `sshpass -v -p ${R} rsync -a src host:dst`],
  same('sshpass -f /root/.sshpass ssh -p 2222 host'),
  ['SSHPASS=hunter2 sshpass -e ssh host', `SSHPASS=${R} sshpass -e ssh host`],

  // psql, pg_dump: passwords in URLs and conninfo strings; --password/-W only prompt
  [
    'pg_dump postgresql://backup:hunter2@db:5432/prod -Fc -f prod.dump',
    `pg_dump postgresql://backup:${R}@db:5432/prod -Fc -f prod.dump`,
  ],
  ['psql postgres://app:p@ss@db/prod', `psql postgres://app:${R}@db/prod`],
  [
    'psql "host=db user=app password=hunter2 dbname=prod"',
    `psql "host=db user=app password=${R} dbname=prod"`,
  ],
  same('pg_dump -h db -U app --password prod'),
  same('psql -h db -p 5432 -U app -W prod'),

  // curl: -u/--user user:pw, -U/--proxy-user, -E/--cert file:pw; -u user alone prompts
  ['curl -u alice:hunter2 https://api.example.com', `curl -u alice:${R} https://api.example.com`],
  [
    'curl --user alice:hunter2 https://api.example.com',
    `curl --user alice:${R} https://api.example.com`,
  ],
  ['curl -sSualice:hunter2 https://api.example.com', `curl -sSualice:${R} https://api.example.com`],
  ['curl -o out.json -u alice:hunter2 https://h', `curl -o out.json -u alice:${R} https://h`],
  ['curl -x proxy:3128 -U bob:hunter2 https://h', `curl -x proxy:3128 -U bob:${R} https://h`],
  ['curl -E client.pem:hunter2 https://h', `curl -E client.pem:${R} https://h`],
  same('curl -u alice https://api.example.com'),
  same('curl -sSL -o /tmp/x https://example.com/install.sh'),

  // wget: --password, --http-password, --ftp-password, --proxy-password; --ask-password prompts
  [
    'wget --user=alice --password=hunter2 https://h/f',
    `wget --user=alice --password=${R} https://h/f`,
  ],
  [
    'wget --http-user=alice --http-password=hunter2 https://h/f',
    `wget --http-user=alice --http-password=${R} https://h/f`,
  ],
  ['wget --ftp-password hunter2 ftp://h/f', `wget --ftp-password ${R} ftp://h/f`],
  same('wget --user=alice --ask-password https://h/f'),

  // htpasswd -b: the password is the last argument
  ['htpasswd -b /etc/nginx/.htpasswd alice hunter2', `htpasswd -b /etc/nginx/.htpasswd alice ${R}`],
  [
    'htpasswd -cbB /etc/apache2/.htpasswd alice hunter2',
    `htpasswd -cbB /etc/apache2/.htpasswd alice ${R}`,
  ],
  ['htpasswd -nbB -C 12 alice hunter2', `htpasswd -nbB -C 12 alice ${R}`],
  same('htpasswd -c /etc/nginx/.htpasswd alice'),
  same('htpasswd -D /etc/nginx/.htpasswd alice'),

  // openssl: -passin/-passout/-pass pass:<pw>, -k <pw>, -K <hex key>, -psk <hex key>
  [
    'openssl rsa -in key.pem -passin pass:hunter2 -out plain.pem',
    `openssl rsa -in key.pem -passin pass:${R} -out plain.pem`,
  ],
  [
    'openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:hunter2',
    `openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:${R}`,
  ],
  [
    'openssl enc -aes-256-cbc -k hunter2 -in f -out f.enc',
    `openssl enc -aes-256-cbc -k ${R} -in f -out f.enc`,
  ],
  [
    'openssl enc -d -aes-256-cbc -pass pass:hunter2 -in f.enc',
    `openssl enc -d -aes-256-cbc -pass pass:${R} -in f.enc`,
  ],
  [
    'openssl enc -aes-128-cbc -K 00112233445566778899aabbccddeeff -iv 0102030405060708 -in f',
    `openssl enc -aes-128-cbc -K ${R} -iv 0102030405060708 -in f`,
  ],
  ['openssl s_client -connect h:443 -psk 1a2b3c4d', `openssl s_client -connect h:443 -psk ${R}`],
  same('openssl req -new -key k.pem -passin env:KEY_PASS -out r.csr'),
  same('openssl rsa -in k.pem -passin file:/run/secrets/key_pass -out p.pem'),

  // Samba tools: -U user%pw, --user=user%pw
  ['smbclient //fs/share -U alice%hunter2', `smbclient //fs/share -U alice%${R}`],
  [
    'smbclient //fs/share --user=CORP\\alice%hunter2',
    `smbclient //fs/share --user=CORP\\alice%${R}`,
  ],
  ['net ads join -U administrator%hunter2', `net ads join -U administrator%${R}`],
  same('smbclient -L fs -U alice'),

  // OpenLDAP tools: -w <pw>; ldappasswd also -a <old pw>, -s <new pw>
  [
    'ldapsearch -x -H ldap://dc -D cn=admin,dc=ex -w hunter2 -b dc=ex',
    `ldapsearch -x -H ldap://dc -D cn=admin,dc=ex -w ${R} -b dc=ex`,
  ],
  [
    'ldapmodify -x -D cn=admin -whunter2 -f change.ldif',
    `ldapmodify -x -D cn=admin -w${R} -f change.ldif`,
  ],
  [
    'ldappasswd -x -D cn=admin -w hunter2 -a 0ldpw -s n3wpw uid=alice',
    `ldappasswd -x -D cn=admin -w ${R} -a ${R} -s ${R} uid=alice`,
  ],
  same('ldapsearch -x -a always -s sub -W -b dc=ex'),

  // mongo, mongosh and the database tools: -p <pw>, URIs
  [
    'mongosh -u admin -p hunter2 --authenticationDatabase admin',
    `mongosh -u admin -p ${R} --authenticationDatabase admin`,
  ],
  ['mongo -u admin -p hunter2 admin', `mongo -u admin -p ${R} admin`],
  ['mongodump -u backup -p hunter2 --out /backup', `mongodump -u backup -p ${R} --out /backup`],
  [
    'mongosh mongodb+srv://admin:hunter2@cluster0.example.net/app',
    `mongosh mongodb+srv://admin:${R}@cluster0.example.net/app`,
  ],
  [
    'mongosh "mongodb://admin:hunter2@db:27017/app?authSource=admin"',
    `mongosh "mongodb://admin:${R}@db:27017/app?authSource=admin"`,
  ],
  same('mongosh -u admin -p --host db'),

  // docker/podman/nerdctl/buildah/skopeo/helm login: -p <pw>, --password <pw>
  [
    'docker login -u bob -p hunter2 registry.example.com',
    `docker login -u bob -p ${R} registry.example.com`,
  ],
  [
    'docker --config /tmp/cfg login -u bob -phunter2 ghcr.io',
    `docker --config /tmp/cfg login -u bob -p${R} ghcr.io`,
  ],
  ['podman login -u bob -p hunter2 quay.io', `podman login -u bob -p ${R} quay.io`],
  ['helm registry login -u bob -p hunter2 ghcr.io', `helm registry login -u bob -p ${R} ghcr.io`],
  same('docker login --username bob --password-stdin registry.example.com'),
  same('docker run -p 8080:80 -d nginx'),

  // git: credentials in remote URLs
  [
    'git clone https://alice:ghs_short@git.example.com/team/repo.git',
    `git clone https://alice:${R}@git.example.com/team/repo.git`,
  ],
  same('git clone https://github.com/o/r.git'),

  // AWS: --secret-access-key, aws configure set <secret setting> <value>; npm/pnpm/yarn config set
  ['rclone --s3-secret-access-key wJalrXUtnFEMI/K7MDENG', `rclone --s3-secret-access-key ${R}`],
  [
    'aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    `aws configure set aws_secret_access_key ${R}`,
  ],
  [
    'aws configure set aws_session_token IQoJb3JpZ2luX2VjEXAMPLE --profile dev',
    `aws configure set aws_session_token ${R} --profile dev`,
  ],
  [
    'npm config set //registry.npmjs.org/:_authToken npm_abcdef123456',
    `npm config set //registry.npmjs.org/:_authToken ${R}`,
  ],
  same('aws configure set region eu-west-1'),

  // More tools with a secret option: ssh-keygen, zip, 7z, rar, sqlcmd, ipmitool, cqlsh, useradd,
  // net-snmp, lftp, FreeRDP, sqlplus
  [
    'ssh-keygen -t ed25519 -N hunter2 -f /root/.ssh/id_ed25519',
    `ssh-keygen -t ed25519 -N ${R} -f /root/.ssh/id_ed25519`,
  ],
  ['ssh-keygen -p -P 0ldpass -N n3wpass -f key', `ssh-keygen -p -P ${R} -N ${R} -f key`],
  same("ssh-keygen -t ed25519 -N '' -f key"),
  ['zip -P hunter2 -r backup.zip /srv/data', `zip -P ${R} -r backup.zip /srv/data`],
  ['unzip -P hunter2 backup.zip', `unzip -P ${R} backup.zip`],
  ['7z a -phunter2 -mhe=on backup.7z /srv/data', `7z a -p${R} -mhe=on backup.7z /srv/data`],
  ['rar a -hphunter2 backup.rar /srv/data', `rar a -hp${R} backup.rar /srv/data`],
  same('unrar x -p- backup.rar'),
  ['sqlcmd -S db -U sa -P hunter2 -Q "SELECT 1"', `sqlcmd -S db -U sa -P ${R} -Q "SELECT 1"`],
  [
    'ipmitool -I lanplus -H bmc -U admin -P hunter2 chassis status',
    `ipmitool -I lanplus -H bmc -U admin -P ${R} chassis status`,
  ],
  ['cqlsh -u cassandra -p hunter2 db 9042', `cqlsh -u cassandra -p ${R} db 9042`],
  ['useradd -m -p $6$salt$hash alice', `useradd -m -p ${R} alice`],
  ['snmpwalk -v2c -c s3cretcommunity switch01 system', `snmpwalk -v2c -c ${R} switch01 system`],
  [
    'snmpget -v3 -u mon -l authPriv -a SHA -A authpass -x AES -X privpass sw1 sysName.0',
    `snmpget -v3 -u mon -l authPriv -a SHA -A ${R} -x AES -X ${R} sw1 sysName.0`,
  ],
  ['lftp -u alice,hunter2 sftp://files.example.com', `lftp -u alice,${R} sftp://files.example.com`],
  ['xfreerdp /v:host /u:alice /p:hunter2', `xfreerdp /v:host /u:alice /p:${R}`],
  ['sqlplus scott/tiger@orcl @report.sql', `sqlplus scott/${R}@orcl @report.sql`],
  [
    'expdp system/hunter2 directory=dp dumpfile=x.dmp',
    `expdp system/${R} directory=dp dumpfile=x.dmp`,
  ],
  same('sqlplus / as sysdba'),

  // Program paths and prompts are not secrets
  same('SSH_ASKPASS=/usr/bin/ksshaskpass git push'),

  // Short options that hold no secret: -p, -a, -P for every other tool
  same('ls -a /home/alice'),
  same('ls -la /var/lib/mysql'),
  same('cp -p /etc/mysql/my.cnf /backup/'),
  same('cp -a src dst'),
  same('mkdir -p /var/lib/mysql'),
  same('tar -xpf backup.tar -C /srv'),
  same('tar -p -xf backup.tar'),
  same('rsync -a -p src/ dst/'),
  same('ssh -p 2222 alice@host'),
  same('scp -P 2222 file alice@host:'),
  same('nc -l -p 1234'),
  same('grep -a pattern file'),
  same('chown -R mysql:mysql /var/lib/mysql'),
  same('sudo -u mysql mysqld --user=mysql'),
  same('/usr/bin/redis-server 127.0.0.1:6379'),
  same('ssh -p 2222 root@db mysql -e status'),
];

describe('redact: secrets that well-known tools take on the command line', () => {
  it.each(TABLE)('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it.each(TABLE)('is stable on its own answer: %s', (_input, expected) => {
    expect(redact(expected)).toBe(expected);
  });
});
