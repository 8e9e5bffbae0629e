#!/usr/bin/env python3
"""No two source files may import each other, directly or through others.

Builds the module graph of a Rust crate from its `use` trees and `crate::`/`super::` paths (a
module's own ancestors and descendants are not counted: a `mod.rs` declares its children and
re-exports them), prints each cycle with its edges, and exits 1 when there is any.

Usage: scripts/import-cycles.py [src]   (.ci/run runs it)
"""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else 'src'
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3]
            parts = rel.split('/')
            if parts == ['main']:
                continue  # the binary reaches the library as `creditflow::`, not `crate::`
            if parts[-1] in ('mod', 'lib'):
                parts = parts[:-1]
            files[tuple(parts)] = p
def strip_comments(s):
    s = re.sub(r'//[^\n]*', '', s)
    s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
    return s
def expand(tree):
    # tree: string like a::b::{c, d::{e, f}}
    tree = tree.strip()
    # find top-level brace
    i = tree.find('{')
    if i < 0:
        return [tree.split(' as ')[0].strip()]
    prefix = tree[:i]
    inner = tree[i+1:tree.rfind('}')]
    items, depth, cur = [], 0, ''
    for ch in inner:
        if ch == '{': depth += 1
        if ch == '}': depth -= 1
        if ch == ',' and depth == 0:
            items.append(cur); cur = ''
        else:
            cur += ch
    items.append(cur)
    out = []
    for it in items:
        it = it.strip()
        if not it: continue
        for e in expand(it):
            out.append(prefix + e)
    return out
def resolve(cur, path):
    segs = [s for s in path.replace(' ', '').split('::') if s]
    if not segs: return None
    cur = list(cur)
    if segs[0] == 'crate':
        base = []; segs = segs[1:]
    elif segs[0] in ('super', 'self'):
        base = cur
        while segs and segs[0] in ('super', 'self'):
            if segs[0] == 'super': base = base[:-1]
            segs = segs[1:]
    else:
        return None
    best = None
    p = list(base)
    if tuple(p) in files: best = tuple(p)
    for s in segs:
        p.append(s)
        if tuple(p) in files: best = tuple(p)
        else: break
    return best
edges = {k: set() for k in files}
for k, p in files.items():
    src = strip_comments(open(p).read())
    # is this file's own module context: for mod.rs, current module = k; for x.rs, current = k (self = k)
    # cut out #[cfg(test)] mod tests { ... } bodies? keep simple: drop after '#[cfg(test)]\nmod tests'
    m = re.search(r'#\[cfg\(test\)\]\s*mod tests', src)
    if m: src = src[:m.start()]
    for u in re.finditer(r'\buse\s+([^;]+);', src, flags=re.S):
        for path in expand(u.group(1)):
            t = resolve(k, path)
            if t and t != k: edges[k].add(t)
    for u in re.finditer(r'\b((?:crate|super)(?:::\w+)+)', src):
        t = resolve(k, u.group(1))
        if t and t != k: edges[k].add(t)
# a module's own ancestors and descendants do not count (a mod.rs declares and re-exports its children)
def is_ancestor(a, b):
    return len(a) < len(b) and b[:len(a)] == a
for k in edges:
    edges[k] = {t for t in edges[k] if not is_ancestor(t, k) and not is_ancestor(k, t)}
# tarjan
idx, low, st, on, sccs, c = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(100000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx:
            sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(comp)
for v in list(edges):
    if v not in idx: sc(v)
for comp in sccs:
    print('CYCLE:', sorted('/'.join(x) for x in comp))
    for a in comp:
        for b in edges[a]:
            if b in comp: print('   ', '/'.join(a), '->', '/'.join(b))
print(len(sccs), 'import cycles')
sys.exit(1 if sccs else 0)
