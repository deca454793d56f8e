/**
 * Secrets that well-known tools take as arguments: `mysql -p<pw>`, `redis-cli -a <pw>`,
 * `sshpass -p <pw>`, `curl -u user:<pw>`, `htpasswd -b file user <pw>` … `-p` or `-a` holds a
 * secret only for the tools that define it so: a rule reads only the words after its tool's name,
 * up to the end of that command (`;`, `|`, `&&`, `||`, `&`), so `ls -a`, `mkdir -p` and
 * `ssh -p 2222` stay as they are. Each rule follows the tool's own option syntax.
 *
 * The words a rule judged (an option, its value, a flag it knows takes no value) are settled:
 * {@link settleToolSecrets} hands them back as placeholders so that the name-based patterns of
 * `redact` do not judge them a second time (`-passin env:KEY_PASS` names no secret, the word after
 * `sshpass -P Password:` is not a password).
 */

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** The value with its secret part replaced by {@link REDACTED}, or the value unchanged. */
type Part = (value: string) => string;

const all: Part = () => REDACTED;
/** What follows the first `sep` is secret: `user:pw`, `user%pw`, `user,pw`. */
const after =
  (sep: string): Part =>
  (value) => {
    const at = value.indexOf(sep);
    return at < 0 || at === value.length - 1 ? value : `${value.slice(0, at + 1)}${REDACTED}`;
  };
/** Nothing: the word is settled as it is (a prompt, a file, a flag that takes no value). */
const none: Part = (value) => value;
/** openssl pass phrase arguments: only `pass:<pw>` holds one; `env:`, `file:`, `fd:`, `stdin` name where it is. */
const opensslPass: Part = (value) =>
  value.startsWith('pass:') && value.length > 5 ? `pass:${REDACTED}` : value;
/** curl `--cert <file[:password]>`; a Windows drive (`C:\`) and a PKCS#11 URI are not the separator. */
const certPassword: Part = (value) => {
  if (value.startsWith('pkcs11:')) return value;
  const drive = /^[A-Za-z]:[\\/]/.test(value) ? 2 : 0;
  const at = value.indexOf(':', drive);
  return at < 0 || at === value.length - 1 ? value : `${value.slice(0, at + 1)}${REDACTED}`;
};

/**
 * `word` with its secret part redacted. Quotes around it stay unless all of it goes; an empty
 * value (`''`) and `-` (read it from stdin) hold no secret.
 */
function redactWord(word: string, part: Part): string {
  const quoted = /^(["'])([\s\S]*)\1$/.exec(word);
  const inner = quoted?.[2] ?? word;
  if (inner === '' || inner === '-') return word;
  const out = part(inner);
  if (out === inner) return word;
  return quoted && out !== REDACTED ? `${quoted[1]}${out}${quoted[1]}` : out;
}

/** What a rule sees: the words of one command after the tool's name. */
interface Command {
  readonly args: readonly string[];
  /** Settles `args[index]` as `text`. */
  settle(index: number, text: string): void;
  settled(index: number): boolean;
}
type Rule = (command: Command) => void;

/** A secret option, as the tool itself parses it. */
interface SecretOption {
  /** Spellings: `-p`, `--user`, `-passin` (openssl), `/p:` (FreeRDP). */
  readonly names: readonly string[];
  /** The value may be glued on: `-pVALUE`, `--user=VALUE`, `/p:VALUE`. */
  readonly glued?: boolean;
  /** The value may be the next word. */
  readonly spaced?: boolean;
  /** The tool takes the next word even when it starts with `-` (a required argument). */
  readonly required?: boolean;
  /** Takes no value: settled as it is, so the next word is not read as its value. */
  readonly flag?: boolean;
  /** Which part of the value is secret (default: all of it). */
  readonly part?: Part;
}

/** Settles the option at `args[j]` if it is one of `options`; answers how many words it used. */
function settleOption(cmd: Command, j: number, options: readonly SecretOption[]): number {
  const arg = cmd.args[j] as string;
  for (const option of options) {
    const part = option.part ?? all;
    for (const name of option.names) {
      if (arg === name) {
        if (option.flag) {
          cmd.settle(j, arg);
          return 1;
        }
        const next = cmd.args[j + 1];
        if (!option.spaced || next === undefined || cmd.settled(j + 1)) return 1;
        if (next.startsWith('-') && next !== '-' && !option.required) return 1;
        cmd.settle(j, arg);
        cmd.settle(j + 1, redactWord(next, part));
        return 2;
      }
      const glue = name.startsWith('--') ? `${name}=` : name;
      if (option.glued && arg.length > glue.length && arg.startsWith(glue)) {
        cmd.settle(j, `${glue}${redactWord(arg.slice(glue.length), part)}`);
        return 1;
      }
    }
  }
  return 0;
}

/** A rule that finds `options` anywhere in the command. */
const options =
  (...list: SecretOption[]): Rule =>
  (cmd) => {
    for (let j = 0; j < cmd.args.length; j++) {
      if (!cmd.settled(j)) j += Math.max(settleOption(cmd, j, list) - 1, 0);
    }
  };

/**
 * getopt-style short options, bundled or not (`-vp pw`, `-ppw`, `-p pw`), for tools whose every
 * option that takes a value is known: `valued` lists those letters, `secret` the part of the value
 * that is secret for some of them. Answers how many words `args[j]` used, 0 if it is no such option.
 */
function settleShort(
  cmd: Command,
  j: number,
  valued: string,
  secret: Readonly<Record<string, Part>>,
): number {
  const arg = cmd.args[j] as string;
  if (!/^-[^-]/.test(arg)) return 0;
  for (let k = 1; k < arg.length; k++) {
    const letter = arg[k] as string;
    if (!valued.includes(letter)) continue;
    const part = secret[letter];
    const glued = arg.slice(k + 1);
    if (glued !== '') {
      if (part) cmd.settle(j, `${arg.slice(0, k + 1)}${redactWord(glued, part)}`);
      return 1;
    }
    const next = cmd.args[j + 1];
    if (next === undefined) return 1;
    if (part) {
      cmd.settle(j, arg);
      cmd.settle(j + 1, redactWord(next, part));
    }
    return 2;
  }
  return 1;
}

// mysqladmin's commands: after `-p` they are not a password.
const MYSQLADMIN_COMMANDS = new Set(
  'create debug drop extended-status flush-hosts flush-logs flush-privileges flush-status flush-tables flush-threads kill old-password password ping processlist purge refresh reload shutdown start-replica start-slave status stop-replica stop-slave variables version'.split(
    ' ',
  ),
);

/**
 * mysql and its tools: `-p<pw>`, and `-p <pw>` — which mysql itself reads as "prompt, and the word
 * is the database", but people who write it mean the password, so the word goes too.
 * (`--password=<pw>` and `--password <pw>` are the name-based patterns' part.)
 */
const MYSQL_PASSWORD: SecretOption = { names: ['-p'], glued: true, spaced: true };
const mysql = options(MYSQL_PASSWORD);

/** mysqladmin: the same, except before one of its commands; `password <new>` sets a password. */
const mysqladmin: Rule = (cmd) => {
  cmd.args.forEach((arg, j) => {
    if ((arg === 'password' || arg === 'old-password') && j + 1 < cmd.args.length) {
      cmd.settle(j, arg);
      cmd.settle(j + 1, redactWord(cmd.args[j + 1] as string, all));
    }
  });
  for (let j = 0; j < cmd.args.length; j++) {
    const next = cmd.args[j + 1];
    if (cmd.settled(j) || (cmd.args[j] === '-p' && next && MYSQLADMIN_COMMANDS.has(next))) continue;
    j += Math.max(settleOption(cmd, j, [MYSQL_PASSWORD]) - 1, 0);
  }
};

/** sshpass: options end at the command it runs (`sshpass -p pw ssh -p 2222 host`). */
const sshpass: Rule = (cmd) => {
  for (let j = 0; j < cmd.args.length; j++) {
    const arg = cmd.args[j] as string;
    if (arg === '--' || !arg.startsWith('-') || arg === '-') return;
    if (/^-[hvV]*e/.test(arg)) {
      cmd.settle(j, arg); // -e[env_var]: the rest of the word is a variable's name
      continue;
    }
    j += settleShort(cmd, j, 'fdpP', { p: all, P: none }) - 1;
  }
};

/** htpasswd: options come first; with -b the password is the last of file, user, password. */
const htpasswd: Rule = (cmd) => {
  let batch = false;
  let noFile = false;
  let j = 0;
  for (; j < cmd.args.length; j++) {
    const arg = cmd.args[j] as string;
    if (!arg.startsWith('-') || arg === '-') break;
    const valued = /[Cr]/.exec(arg);
    batch ||= arg.slice(0, valued?.index).includes('b');
    noFile ||= arg.slice(0, valued?.index).includes('n');
    if (valued && valued.index === arg.length - 1) j++; // -C 12, -r 5000
  }
  const password = j + (noFile ? 1 : 2);
  if (batch && password < cmd.args.length) {
    cmd.settle(password, redactWord(cmd.args[password] as string, all));
  }
};

/** curl: every short option that takes a value, so bundles like `-sSu user:pw` parse as curl does. */
const CURL_VALUED = 'AbcCdDeEFHKmoPQrtTuUwxXyYz';
const curl: Rule = (cmd) => {
  const long: SecretOption[] = [
    { names: ['--user', '--proxy-user'], spaced: true, required: true, part: after(':') },
    { names: ['--cert', '--proxy-cert'], spaced: true, required: true, part: certPassword },
  ];
  for (let j = 0; j < cmd.args.length; j++) {
    if (cmd.settled(j)) continue;
    const used =
      settleOption(cmd, j, long) ||
      settleShort(cmd, j, CURL_VALUED, { u: after(':'), U: after(':'), E: certPassword });
    j += Math.max(used - 1, 0);
  }
};

/** `docker login -p <pw>` and its kin: only after the `login` subcommand (`docker run -p 80:80` is a port). */
const registryLogin: Rule = (cmd) => {
  const login = cmd.args.indexOf('login');
  if (login < 0) return;
  const rest: Command = {
    args: cmd.args.slice(login + 1),
    settle: (j, text) => cmd.settle(login + 1 + j, text),
    settled: (j) => cmd.settled(login + 1 + j),
  };
  options({ names: ['-p', '--password'], glued: true, spaced: true, required: true })(rest);
};

/** A setting whose name says it holds a secret (npm's `_auth` is `user:password` in base64). */
const SECRET_SETTING = /secret|token|pass(?:word|wd)?|credential|private[-_]?key|_auth$/i;
/** Options of `aws configure set` and `npm config set` that take a value. */
const CONFIG_VALUED = /^--(?:profile|region|output|endpoint-url|location|userconfig|globalconfig)$/;

/** `aws configure set <name> <value>`, `npm config set <name> <value>`: the value of a secret setting. */
const configSet =
  (verb: string): Rule =>
  (cmd) => {
    const at = cmd.args.findIndex((arg, j) => arg === verb && cmd.args[j + 1] === 'set');
    if (at < 0) return;
    const positional: number[] = [];
    for (let j = at + 2; j < cmd.args.length && positional.length < 2; j++) {
      const arg = cmd.args[j] as string;
      if (CONFIG_VALUED.test(arg)) {
        j++;
      } else if (!arg.startsWith('-')) {
        positional.push(j);
      }
    }
    const [name, value] = positional;
    if (
      name !== undefined &&
      value !== undefined &&
      SECRET_SETTING.test(cmd.args[name] as string)
    ) {
      cmd.settle(value, redactWord(cmd.args[value] as string, all));
    }
  };

/** Oracle logons: `sqlplus user/pw@db`, `expdp system/pw`, `userid=user/pw`. */
const oracleLogon: Rule = (cmd) => {
  // user/password[@connect], quoted or not ("sys/pw as sysdba")
  const hidePassword = (logon: string) =>
    logon.replace(/^(["']?[A-Za-z][\w$#]*\/)[^@\s"']+/, (_m, user) => `${user}${REDACTED}`);
  let first = true;
  for (let j = 0; j < cmd.args.length; j++) {
    const arg = cmd.args[j] as string;
    if (/^userid=/i.test(arg)) {
      cmd.settle(j, `${arg.slice(0, 7)}${hidePassword(arg.slice(7))}`);
    } else if (/^-[CMR]$/i.test(arg)) {
      j++; // the options of sqlplus that take a value
    } else if (!arg.startsWith('-') && first) {
      first = false;
      const logon = hidePassword(arg);
      if (logon !== arg) cmd.settle(j, logon);
    }
  }
};

const family = (names: string, rule: Rule): [string, Rule][] =>
  names.split(' ').map((name) => [name, rule]);

const TOOLS = new Map<string, Rule>([
  ...family(
    'mysql mysqldump mysqlpump mysqlimport mysqlcheck mysqlshow mysqlslap mysqlbinlog mysqlsh mysql_upgrade ' +
      'mariadb mariadb-dump mariadb-import mariadb-check mariadb-show mariadb-slap mariadb-binlog mariadb-upgrade',
    mysql,
  ),
  ...family('mysqladmin mariadb-admin', mysqladmin),
  ...family(
    'redis-cli redis-benchmark valkey-cli valkey-benchmark',
    options({ names: ['-a', '--pass'], spaced: true, required: true }),
  ),
  ['sshpass', sshpass],
  // --password (like -W) only makes them prompt: the next word is a database, not a password
  ...family(
    'psql pg_dump pg_dumpall pg_restore pg_basebackup createdb dropdb createuser dropuser vacuumdb reindexdb clusterdb',
    options({ names: ['--password'], flag: true }),
  ),
  ['curl', curl],
  ['htpasswd', htpasswd],
  [
    'openssl',
    options(
      {
        names: ['-passin', '-passout', '-pass', '-password'],
        spaced: true,
        required: true,
        part: opensslPass,
      },
      { names: ['-k', '-K', '-psk'], spaced: true, required: true },
    ),
  ],
  ...family(
    'smbclient rpcclient smbcacls smbcquotas smbtree net',
    options({
      names: ['-U', '--user'],
      glued: true,
      spaced: true,
      required: true,
      part: after('%'),
    }),
  ),
  ...family(
    'ldapsearch ldapadd ldapmodify ldapdelete ldapmodrdn ldapcompare ldapwhoami ldapexop ldapvc',
    options({ names: ['-w'], glued: true, spaced: true, required: true }),
  ),
  ['ldappasswd', options({ names: ['-w', '-a', '-s'], glued: true, spaced: true, required: true })],
  ...family(
    'mongo mongosh mongodump mongorestore mongoexport mongoimport mongostat mongotop mongofiles',
    options({ names: ['-p'], glued: true, spaced: true }),
  ),
  ...family('docker podman nerdctl buildah skopeo helm', registryLogin),
  ['aws', configSet('configure')],
  ...family('npm pnpm yarn', configSet('config')),
  // ssh-keygen -N '' is common: a following option is not taken as the passphrase
  ['ssh-keygen', options({ names: ['-N', '-P'], glued: true, spaced: true })],
  ...family('zip unzip', options({ names: ['-P'], glued: true, spaced: true, required: true })),
  ...family('7z 7za 7zr 7zz', options({ names: ['-p'], glued: true })),
  ...family('rar unrar', options({ names: ['-p', '-hp'], glued: true })),
  ...family('sqlcmd bcp', options({ names: ['-P'], glued: true, spaced: true, required: true })),
  ['ipmitool', options({ names: ['-P', '-k', '-y'], glued: true, spaced: true, required: true })],
  ['cqlsh', options({ names: ['-p', '--password'], glued: true, spaced: true, required: true })],
  ...family(
    'useradd usermod',
    options({ names: ['-p'], glued: true, spaced: true, required: true }),
  ),
  ...family(
    'snmpwalk snmpbulkwalk snmpget snmpgetnext snmpbulkget snmpset snmptable snmptrap snmpinform snmpstatus snmpdf snmpdelta',
    options({ names: ['-c', '-A', '-X'], glued: true, spaced: true, required: true }),
  ),
  ['lftp', options({ names: ['-u'], glued: true, spaced: true, required: true, part: after(',') })],
  ...family(
    'xfreerdp xfreerdp3 wlfreerdp sdl-freerdp sdl-freerdp3',
    options({ names: ['/p:', '/gp:', '/pth:'], glued: true }),
  ),
  ...family('sqlplus expdp impdp exp imp sqlldr', oracleLogon),
]);

/** The tool a word runs, if any: `/usr/bin/mysql`, `COMMAND=/usr/bin/mysql`, `"C:\…\mysql.exe"`. */
function toolOf(word: string): Rule | undefined {
  const path = word.replace(/^[A-Za-z_]\w*=/, '').replace(/["')`]+$/, '');
  let start = path.length;
  while (start > 0 && !'/\\"\'(`'.includes(path[start - 1] as string)) start--;
  return TOOLS.get(
    path
      .slice(start)
      .replace(/\.exe$/i, '')
      .toLowerCase(),
  );
}

/** Whether `text` names one of the tools at all: most lines do not, and need no scan. */
const ANY_TOOL = new RegExp(
  `(?<![\\w.-])(?:${[...TOOLS.keys()].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\w-])`,
  'i',
);

// A word: quoted parts stay whole ("a b", 'c d'); a quote left open runs to the end of the text;
// an unquoted `;` is a word of its own (`mysql -ppw; ls`).
const WORD = /(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^\s"';])+|;/g;
const END_OF_COMMAND = /^(?:;|&&?|\|\|?|\|&)$/;
const QUOTED_WITH_SPACE = /"([^"]*\s[^"]*)("|$)|'([^']*\s[^']*)('|$)/g;

/**
 * `text` with each word a tool rule judged replaced by `mark(text)`, which answers the
 * placeholder it stands for until the caller puts it back. Quoted parts holding a command
 * (`sh -c "mysql -ppw"`) are judged the same way.
 */
export function settleToolSecrets(text: string, mark: (word: string) => string): string {
  if (!ANY_TOOL.test(text)) return text;
  const words = [...text.matchAll(WORD)];
  const rules = words.map((w) => toolOf(w[0]));
  const settled = new Map<number, string>();
  for (let i = 0; i < words.length; i++) {
    const rule = rules[i];
    if (!rule || settled.has(i)) continue;
    // The command runs to its end (`;`, `|`, `&&` …) or to the next word of the same rule, which
    // reads the rest itself: no word is read twice by one rule, however often a name repeats.
    let end = i + 1;
    while (
      end < words.length &&
      rules[end] !== rule &&
      !END_OF_COMMAND.test((words[end] as RegExpExecArray)[0])
    ) {
      end++;
    }
    rule({
      args: words.slice(i + 1, end).map((w) => w[0]),
      settle: (j, word) => settled.set(i + 1 + j, word),
      settled: (j) => settled.has(i + 1 + j),
    });
  }
  let out = '';
  let last = 0;
  words.forEach((w, i) => {
    const word = settled.get(i);
    const judged =
      word === undefined
        ? w[0].replace(
            QUOTED_WITH_SPACE,
            (_m, dq: string | undefined, dqEnd: string, sq: string | undefined, sqEnd: string) =>
              dq !== undefined
                ? `"${settleToolSecrets(dq, mark)}${dqEnd}`
                : `'${settleToolSecrets(sq as string, mark)}${sqEnd}`,
          )
        : mark(word);
    out += text.slice(last, w.index) + judged;
    last = w.index + w[0].length;
  });
  return out + text.slice(last);
}
