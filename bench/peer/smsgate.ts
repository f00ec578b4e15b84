// The peer of `npm run bench:peer`: SMSGate's server (android-sms-gateway/server, Go, the server of
// the "SMS Gateway for Android" app) in private mode on its own MariaDB, with a fresh data folder
// each run so both systems start empty. PEER_DIR holds the built `sms-gateway` binary
// (bench/peer/build.sh); MariaDB is Debian's mariadb-server. Both stop with the bench.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkRunning, until } from '../../test/support/stack';
import type { Component } from '../proc';
import { startProcess, tempDir } from '../stack';

/** The private token the bench registers phones with (private mode, no upstream). */
const PRIVATE_TOKEN = 'bench-private-token';

export interface Peer {
  base: string;
  privateToken: string;
  components: Component[];
}

function mysqlIds(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('mysql:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export async function startPeer(options: { peerDir: string; port: number; dbPort: number }): Promise<Peer> {
  const binary = path.join(options.peerDir, 'sms-gateway');
  if (!existsSync(binary)) throw new Error(`no built peer at ${binary}: see docs/performance.md, "The peer"`);
  const data = tempDir('bench-peer-');
  const cnf = path.join(data, 'my.cnf');
  for (const dir of ['data', 'run']) mkdirSync(path.join(data, dir));
  writeFileSync(
    cnf,
    [
      '[mysqld]',
      `datadir=${data}/data`,
      `socket=${data}/run/mysqld.sock`,
      `pid-file=${data}/run/mysqld.pid`,
      `port=${options.dbPort}`,
      'bind-address=127.0.0.1',
      'user=mysql',
      'skip-name-resolve',
      `log-error=${data}/error.log`,
      '[client]',
      `socket=${data}/run/mysqld.sock`,
      '',
    ].join('\n'),
  );
  // mariadbd drops to the mysql user when started as root: its folders must be that user's.
  const ids = process.getuid?.() === 0 ? mysqlIds() : undefined;
  if (ids) for (const dir of [data, `${data}/data`, `${data}/run`]) chownSync(dir, ids.uid, ids.gid);

  const run = (command: string, args: string[], env?: Record<string, string>) => {
    const result = spawnSync(command, args, { cwd: data, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr || result.stdout}`);
  };
  run('mariadb-install-db', [`--defaults-file=${cnf}`, '--auth-root-authentication-method=socket']);
  const db = startProcess('mariadb', 'mariadbd', [`--defaults-file=${cnf}`], { PATH: process.env.PATH });
  await until('MariaDB', 60_000, () => {
    checkRunning([db]);
    const ping = spawnSync('mariadb-admin', [`--defaults-file=${cnf}`, '-uroot', 'ping'], { encoding: 'utf8' });
    return ping.status === 0 ? true : undefined;
  });
  run('mariadb', [
    `--defaults-file=${cnf}`,
    '-uroot',
    '-e',
    `create database sms; create user 'sms'@'127.0.0.1' identified by 'sms'; grant all on sms.* to 'sms'@'127.0.0.1';`,
  ]);

  // Private mode, memory cache and pub/sub, no FCM: the server alone on its database.
  const env = {
    PATH: process.env.PATH ?? '',
    GATEWAY__MODE: 'private',
    GATEWAY__PRIVATE_TOKEN: PRIVATE_TOKEN,
    GATEWAY__UPSTREAM_URL: 'http://127.0.0.1:9/upstream/v1',
    HTTP__LISTEN: `127.0.0.1:${options.port}`,
    DATABASE__HOST: '127.0.0.1',
    DATABASE__PORT: String(options.dbPort),
    DATABASE__USER: 'sms',
    DATABASE__PASSWORD: 'sms',
    DATABASE__DATABASE: 'sms',
    CACHE__URL: 'memory://',
    PUBSUB__URL: 'memory://',
    FCM__CREDENTIALS_JSON: '{}',
    CONFIG_PATH: path.join(data, 'none.yml'),
  };
  run(binary, ['db:migrate'], env);
  const server = startProcess('smsgate', binary, [], env);
  const base = `http://127.0.0.1:${options.port}`;
  await until('the peer to answer /health', 60_000, async () => {
    checkRunning([server, db]);
    const res = await fetch(`${base}/health`).catch(() => undefined);
    return res?.ok ? true : undefined;
  });
  return {
    base,
    privateToken: PRIVATE_TOKEN,
    components: [
      { name: 'smsgate', root: () => server.process.pid },
      { name: 'mariadb', root: () => db.process.pid },
    ],
  };
}
