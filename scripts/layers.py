#!/usr/bin/env python3
"""The layer check: reads every `use` path (crate::, super::, self::) and every
child module a parent names in the files of src/ (test modules left out), then
  1. prints each strongly connected group of files that import each other
     (an import cycle), and
  2. prints each import that breaks the layer order below: a folder may name
     only its own layer and the layers listed before it.
Exits 1 if it finds either. Usage: scripts/layers.py [REPO]"""
import re,os,sys,itertools
root=(sys.argv[1] if len(sys.argv) > 1 else '.')+'/src'
files={}
for d,_,fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p=os.path.join(d,f); rel=os.path.relpath(p,root)[:-3]
            mod=re.sub(r'/mod$','',rel).replace('/','::')
            if mod in('lib','main'): mod='crate' if mod=='lib' else 'main'
            files[mod]=open(p).read()
mods=set(files)
def resolve(cur,path):
    parts=path.split('::')
    if parts[0]=='crate': base=[]; parts=parts[1:]
    elif parts[0]=='super':
        base=cur.split('::')
        # module file: super of a::b is a
        base=base[:-1]
        parts=parts[1:]
        while parts and parts[0]=='super': base=base[:-1]; parts=parts[1:]
    elif parts[0]=='self': base=cur.split('::'); parts=parts[1:]
    else: return None
    best=None
    for i in range(len(parts),0,-1):
        m='::'.join(base+parts[:i])
        if m in mods: best=m;break
    if best is None and base and '::'.join(base) in mods: best='::'.join(base)
    return best
edges={m:set() for m in mods}
for m,t in files.items():
    t=re.sub(r'#\[cfg\(test\)\]\s*(?:pub\(crate\)\s*)?mod tests\s*\{.*','',t,flags=re.S)
    for u in re.findall(r'\b(?:crate|super|self)(?:::[A-Za-z_0-9]+)+(?:::\{[^;]*?\})?',t):
        # expand braces
        mbr=re.match(r'(.*?)::\{(.*)\}$',u,re.S)
        paths=[u]
        if mbr:
            paths=[mbr.group(1)+'::'+x.strip().split(' ')[0] for x in re.split(r',',mbr.group(2)) if x.strip() and '{' not in x]
            paths.append(mbr.group(1))
        for p in paths:
            p=p.replace('::{','')
            r=resolve(m,p)
            if r and r!=m and r!='crate': edges[m].add(r)
    for c in mods:
        if c.startswith(m+'::') and c.count('::')==m.count('::')+1 or (m=='crate' and '::' not in c and c not in('crate','main')):
            name=c.split('::')[-1]
            if re.search(r'(?<![A-Za-z_:])'+name+r'::',t): edges[m].add(c)
# cycles via SCC
idx={};low={};st=[];on=set();sccs=[];c=[0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        s=[]
        while True:
            w=st.pop();on.discard(w);s.append(w)
            if w==v:break
        if len(s)>1: sccs.append(s)
for v in mods:
    if v not in idx: sc(v)
for s in sccs:
    print('CYCLE:',sorted(s))
    for a in s:
        print('  ',a,'->',sorted(edges[a]&set(s)))
print(len(sccs),'cycles')
# The layers, bottom up, as ARCHITECTURE.md draws them. The rules of Go (go/)
# never name the search, the network, the engine or a front end; the network
# never names the search; nothing below the front ends names one.
LAYERS=['core','go','knowledge','nn','search','phantom','engine','frontends','tools','main']
def layer(m):
    top=m.split('::')[0]
    return LAYERS.index(top) if top in LAYERS else None
broken=[]
for m in sorted(mods):
    lm=layer(m)
    if lm is None:
        if m!='crate': broken.append((m,'(a module outside the layers)'))
        continue
    for w in sorted(edges[m]):
        lw=layer(w)
        if lw is not None and lw>lm: broken.append((m,w))
# The network's front door: outside nn/, only the module nn itself (its
# Evaluator, Evaluation, Request) is named, never nn's inner modules.
for m in sorted(mods):
    if m.split('::')[0] in ('nn',): continue
    for w in sorted(edges[m]):
        if w.startswith('nn::'): broken.append((m,w+' (behind the network\'s front door)'))
for m,w in broken: print('LAYER:',m,'->',w)
print(len(broken),'imports against the layers')
sys.exit(1 if sccs or broken else 0)
