#!/usr/bin/env python3
"""Lines and functions per top-level type in Sources (its declaration plus every extension of it), biggest
first: the measure of issue 32's "no type over ~600 lines or ~30 functions". Usage: scripts/type-sizes.py [DIR] [N]."""
import re, sys, os, collections
root = sys.argv[1] if len(sys.argv) > 1 else 'Sources'
lines = collections.Counter(); funcs = collections.Counter(); files = collections.defaultdict(set)
head = re.compile(r'^(?:public |internal |private |fileprivate |final |open |@\w+ )*(class|struct|enum|extension|actor|protocol) ([A-Za-z_][A-Za-z0-9_.]*)')
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith('.swift'): continue
        p = os.path.join(d, f); text = open(p, encoding='utf-8', errors='replace').read().split('\n')
        i = 0
        while i < len(text):
            m = head.match(text[i])
            if m and '{' in text[i]:
                name = m.group(2).split('.')[0]; j = i
                # the block ends at the first line that is exactly "}" (top level)
                while j < len(text) and text[j] != '}' and not (j == i and text[i].rstrip().endswith('}')): j += 1
                lines[name] += j - i + 1; files[name].add(f)
                funcs[name] += sum(1 for k in range(i, j + 1) if re.search(r'\b(func|init)\b[ (<]', text[k]) and not text[k].lstrip().startswith('//'))
                i = j + 1
            else: i += 1
for name, n in lines.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 15):
    print(f"{name:28} {n:5} lines {funcs[name]:4} funcs {len(files[name]):3} files")
