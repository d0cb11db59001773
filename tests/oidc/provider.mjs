// A real OpenID provider for tests: npm `oidc-provider` (a certified implementation) on 127.0.0.1, with the
// clients and accounts a test gives. Its development login accepts any name; nothing else is disabled.
//
// Usage: node provider.mjs CONFIG_JSON
//   CONFIG_JSON: {"clients": [{"client_id", "client_secret", "redirect_uris": [...]}],
//                 "accounts": {"<login>": {"email", "email_verified", "groups": [...]}}}
//   A login not listed gets `<login>` as its address when it has an `@` (else `<login>@example.com`), verified,
//   and no group.
// Prints `ISSUER http://127.0.0.1:<port>` once listening. Reads commands on stdin, one per line:
//   `rotate`: signs from now on with a new key (a new `kid`; the old key leaves the JWKS), prints `ROTATED <kid>`.
// Exits when stdin closes.
//
// Node resolves `oidc-provider` and `jose` from NODE_PATH (the tests set it to the tools' node_modules).

import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));

// ES modules ignore NODE_PATH: resolve the packages through it by hand.
const modules = (process.env.NODE_PATH || '').split(':').filter(Boolean);
async function load(name) {
  for (const dir of modules) {
    try {
      const require = createRequire(join(dir, 'noop.js'));
      return await import(pathToFileURL(require.resolve(name)).href);
    } catch {
      // Next folder.
    }
  }
  return import(name);
}
const { default: Provider } = await load('oidc-provider');
const { generateKeyPair, exportJWK } = await load('jose');

let generation = 0;
async function signingKey() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  generation += 1;
  return { ...jwk, kid: `test-key-${generation}-${randomBytes(4).toString('hex')}`, alg: 'RS256', use: 'sig' };
}

function account(id) {
  const known = (config.accounts || {})[id] || {};
  return {
    accountId: id,
    async claims() {
      return {
        sub: id,
        email: known.email ?? (id.includes('@') ? id : `${id}@example.com`),
        email_verified: known.email_verified ?? true,
        groups: known.groups ?? [],
      };
    },
  };
}

function build(issuer, key) {
  const provider = new Provider(issuer, {
    clients: config.clients.map((c) => ({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      ...c,
    })),
    jwks: { keys: [key] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    scopes: ['openid', 'email', 'groups'],
    // The claims of the granted scopes go into the ID token itself (the relying party reads no userinfo).
    conformIdTokenClaims: false,
    cookies: { keys: [randomBytes(16).toString('hex')] },
    findAccount: (ctx, id) => account(id),
  });
  provider.on('server_error', (ctx, err) => console.error('server_error', err));
  return provider;
}

let current = null;
const server = createServer((req, res) => current.callback()(req, res));
server.listen(0, '127.0.0.1', async () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  current = build(issuer, await signingKey());
  console.log(`ISSUER ${issuer}`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', async (line) => {
    if (line.trim() === 'rotate') {
      const key = await signingKey();
      current = build(issuer, key);
      console.log(`ROTATED ${key.kid}`);
    }
  });
  lines.on('close', () => process.exit(0));
});
