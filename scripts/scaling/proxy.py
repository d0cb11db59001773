#!/usr/bin/env python3
# The measuring proxy of docs/scaling.md: scripts/scaling/proxy.py LISTEN_PORT MOTO_PORT LOG (run with the tools'
# Python, .tools/venv/bin/python). GET /__mark?label=begin:NAME and end:NAME delimit a step.
"""Logging proxy between specpress and moto: records every DynamoDB/SQS call, the item images before and after
each write (side GetItems to moto, not logged), and the item sizes read. One JSON line per call."""
import json, sys, threading, time, http.client, base64, urllib.parse
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

UP_HOST, UP_PORT = '127.0.0.1', int(sys.argv[2])
LISTEN = int(sys.argv[1])
LOG = open(sys.argv[3], 'a', buffering=1)
lock = threading.Lock()
tl = threading.local()
SEQ = [0]

def conn():
    c = getattr(tl, 'c', None)
    if c is None:
        c = tl.c = http.client.HTTPConnection(UP_HOST, UP_PORT, timeout=120)
    return c

def upstream(method, path, body, headers):
    for attempt in range(2):
        c = conn()
        try:
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            data = r.read()
            return r.status, r.getheaders(), data
        except (http.client.HTTPException, OSError):
            tl.c = None
            if attempt: raise

def side_get(table, key):
    body = json.dumps({'TableName': table, 'Key': key, 'ConsistentRead': True}).encode()
    h = {'X-Amz-Target': 'DynamoDB_20120810.GetItem', 'Content-Type': 'application/x-amz-json-1.0',
         'Authorization': 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0'}
    st, _, data = upstream('POST', '/', body, h)
    if st != 200: return None
    return json.loads(data).get('Item')

def num_size(n):
    s = n.lstrip('-').replace('.', '')
    s = s.lstrip('0').rstrip('0') or '0'
    return 1 + (len(s) + 1) // 2 + (1 if n.startswith('-') else 0)

def vsize(v):
    (t, x), = v.items()
    if t == 'S': return len(x.encode())
    if t == 'N': return num_size(x)
    if t == 'B': return len(base64.b64decode(x))
    if t in ('BOOL', 'NULL'): return 1
    if t == 'SS': return sum(len(e.encode()) for e in x)
    if t == 'NS': return sum(num_size(e) for e in x)
    if t == 'BS': return sum(len(base64.b64decode(e)) for e in x)
    if t == 'L': return 3 + len(x) + sum(vsize(e) for e in x)
    if t == 'M': return 3 + sum(len(k.encode()) + 1 + vsize(e) for k, e in x.items())
    return 0

def isize(item):
    return None if item is None else sum(len(k.encode()) + vsize(v) for k, v in item.items())

def key_of(item):
    return {'pk': item['pk'], 'sk': item['sk']}

def gsi_entries(item):
    out = {}
    if item is None: return out
    for g in ('gsi1', 'gsi2'):
        if f'{g}pk' in item and f'{g}sk' in item:
            out[g] = ((item[f'{g}pk']['S'], item[f'{g}sk']['S']), isize(item))
    return out

def wcu(n): return max(1, -(-n // 1024))

def write_units(old, new):
    """Table WCU (non-transactional) and per-GSI WCU for one write, from the images (dynoxide's captured rules)."""
    so, sn = isize(old), isize(new)
    t = max(wcu(so) if so is not None else 0, wcu(sn) if sn is not None else 0) or 1
    go, gn = gsi_entries(old), gsi_entries(new)
    g = {}
    for name in ('gsi1', 'gsi2'):
        o, n = go.get(name), gn.get(name)
        if o is None and n is None: continue
        if o is None: g[name] = wcu(n[1])
        elif n is None: g[name] = wcu(o[1])
        elif o[0] != n[0]: g[name] = wcu(o[1]) + wcu(n[1])
        elif old == new: continue
        else: g[name] = max(wcu(o[1]), wcu(n[1]))
    return t, g

def short(k):
    return f"{k['pk']['S'][:60]} | {k['sk']['S'][:40]}"

class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path.startswith('/__mark'):
            q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
            with lock:
                LOG.write(json.dumps({'mark': q.get('label', [''])[0], 't': time.time()}) + '\n')
            self.send_response(200); self.send_header('Content-Length', '0'); self.end_headers(); return
        self.forward('GET', None)
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0))
        self.forward('POST', self.rfile.read(n))
    def forward(self, method, body):
        target = self.headers.get('X-Amz-Target', '')
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ('connection', 'keep-alive')}
        rec = {'t': time.time(), 'op': target.split('.')[-1] or method, 'svc': target.split('_')[0].split('.')[0]}
        req = None
        if target.startswith('DynamoDB'):
            req = json.loads(body)
            pre = self.before(rec['op'], req)
        t0 = time.time()
        st, hdrs, data = upstream(method, self.path, body, headers)
        rec['ms'] = round((time.time() - t0) * 1000, 2)
        rec['status'] = st
        rec['req_bytes'] = len(body or b'')
        rec['resp_bytes'] = len(data)
        if req is not None:
            try:
                self.account(rec, req, pre, st, json.loads(data) if data else {})
            except Exception as e:
                rec['acct_error'] = repr(e)
        elif target:
            try:
                j = json.loads(body)
                rec['detail'] = {k: (v if len(str(v)) < 200 else str(v)[:200]) for k, v in j.items() if k != 'QueueUrl'}
            except Exception:
                pass
        with lock:
            SEQ[0] += 1; rec['n'] = SEQ[0]
            LOG.write(json.dumps(rec) + '\n')
        self.send_response(st)
        for k, v in hdrs:
            if k.lower() not in ('connection', 'keep-alive', 'transfer-encoding', 'content-length'):
                self.send_header(k, v)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    # Keys a write touches -> images before
    def write_keys(self, op, req):
        out = []
        if op in ('PutItem',): out.append(('put', req['TableName'], key_of(req['Item']), req['Item']))
        elif op in ('UpdateItem', 'DeleteItem'): out.append((op, req['TableName'], req['Key'], None))
        elif op == 'TransactWriteItems':
            for a in req['TransactItems']:
                (kind, x), = a.items()
                if kind == 'Put': out.append(('tput', x['TableName'], key_of(x['Item']), x['Item']))
                else: out.append(('t' + kind, x['TableName'], x['Key'], None))
        elif op == 'BatchWriteItem':
            for table, reqs in req['RequestItems'].items():
                for r in reqs:
                    if 'PutRequest' in r: out.append(('bput', table, key_of(r['PutRequest']['Item']), r['PutRequest']['Item']))
                    else: out.append(('bdel', table, r['DeleteRequest']['Key'], None))
        return out
    def before(self, op, req):
        ks = self.write_keys(op, req)
        return [(kind, table, k, item, side_get(table, k)) for kind, table, k, item in ks]
    def account(self, rec, req, pre, st, resp):
        op = rec['op']
        rec['consistent'] = bool(req.get('ConsistentRead'))
        if op == 'GetItem':
            s = isize(resp.get('Item'))
            rec['keys'] = [short(req['Key'])]
            rec['sizes'] = [s]
            rec['rcu'] = max(1, -(-(s or 0) // 4096)) * (1 if rec['consistent'] else 0.5)
        elif op in ('Query', 'Scan'):
            items = resp.get('Items', [])
            sizes = [isize(i) for i in items]
            tot = sum(sizes)
            rec['index'] = req.get('IndexName')
            vals = req.get('ExpressionAttributeValues', {})
            rec['keys'] = [req.get('KeyConditionExpression', '')[:60] + ' ' + ','.join(str(list(v.values())[0])[:50] for v in vals.values())]
            rec['sizes'] = sizes
            rec['proj'] = req.get('ProjectionExpression')
            rec['rcu'] = max(1, -(-tot // 4096)) * (1 if rec['consistent'] else 0.5)
            rec['more'] = bool(resp.get('LastEvaluatedKey'))
        elif op == 'BatchGetItem':
            sizes = []; keys = []; cons = True
            for table, r in req['RequestItems'].items():
                cons = bool(r.get('ConsistentRead'))
                keys += [short(k) for k in r['Keys']]
            for table, items in resp.get('Responses', {}).items():
                sizes += [isize(i) for i in items]
            missing = len(keys) - len(sizes)
            rec['consistent'] = cons
            rec['keys'] = keys[:5] + (['...'] if len(keys) > 5 else [])
            rec['nkeys'] = len(keys)
            rec['sizes'] = sizes
            rec['rcu'] = (sum(max(1, -(-s // 4096)) for s in sizes) + missing) * (1 if cons else 0.5)
        elif op in ('PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'):
            factor = 2 if op == 'TransactWriteItems' else 1
            acts = []; twcu = 0; gw = {}
            ok = st == 200
            for kind, table, k, item, old in pre:
                new = side_get(table, k) if ok else old
                if kind == 'tConditionCheck':
                    t, g = (wcu(isize(old)) if old else 1), {}
                else:
                    t, g = write_units(old, new)
                twcu += t * factor
                for name, u in g.items(): gw[name] = gw.get(name, 0) + u
                acts.append({'kind': kind, 'key': short(k), 'old': isize(old), 'new': isize(new), 'wcu': t * factor, 'gsi': g})
            rec['actions'] = acts
            rec['wcu'] = twcu
            rec['gsi_wcu'] = gw
            if not ok: rec['error'] = resp.get('__type', '') + ' ' + str(resp.get('message', resp.get('Message', '')))[:200]
        if st != 200 and 'error' not in rec:
            rec['error'] = resp.get('__type', '') + ' ' + str(resp.get('message', resp.get('Message', '')))[:200]

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(('127.0.0.1', LISTEN), H).serve_forever()
