#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut this tree into a patch series against linux-source-6.1.

The base is Debian's linux-source-6.1 with mainline's CAN code taken out
(one commit, not part of the series). Each step of scripts/series/series
then adds its files; Kconfig and Makefile lines appear only in the step
that brings their symbol or directory, so every prefix of the series
configures and builds. Output: git format-patch files with a cover letter
in OUT (default build/patches), and the git tree in the cache.

  can-patches.py [--out DIR] [--checkpatch]
"""

import argparse
import fnmatch
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get('CAN_CACHE', '/var/cache/can-stack')
TARBALL = '/usr/src/linux-source-6.1.tar.xz'
SERIES = os.path.join(TOP, 'scripts', 'series')

# What the series puts into the kernel tree; the rest of our repository
# (out-of-tree build, CI, README) has no place there.
KERNEL_PATHS = ['include/uapi/linux/can.h', 'include/uapi/linux/can',
                'include/linux/can', 'net/can', 'drivers/net/can',
                'Documentation/networking/can.txt',
                'tools/testing/selftests/net/can']
MAINLINE_CAN = ['net/can', 'drivers/net/can', 'include/linux/can',
                'include/uapi/linux/can', 'include/uapi/linux/can.h',
                'Documentation/networking/can.rst']
# Lines of the parent Kconfig/Makefiles that hook the CAN directories in.
HOOKS = {
    'core': [('net/Kconfig', 'source "net/can/Kconfig"'),
             ('net/Makefile', 'obj-$(CONFIG_CAN)\t\t+= can/')],
    'vcan': [('drivers/net/Kconfig', 'source "drivers/net/can/Kconfig"'),
             ('drivers/net/Makefile', 'obj-$(CONFIG_CAN) += can/')],
}


def git(repo, *args, **kw):
    return subprocess.run(['git', '-C', repo] + list(args), check=True,
                          text=True, capture_output=True, **kw).stdout


def our_files():
    files = []
    for p in KERNEL_PATHS:
        full = os.path.join(TOP, p)
        if os.path.isfile(full):
            files.append(p)
            continue
        for d, _, fs in os.walk(full):
            for f in fs:
                rel = os.path.relpath(os.path.join(d, f), TOP)
                if subprocess.run(['git', '-C', TOP, 'ls-files', '--error-unmatch', rel],
                                  capture_output=True).returncode == 0:
                    files.append(rel)
    return sorted(files)


def read_series():
    steps = []
    for line in open(os.path.join(SERIES, 'series')):
        if not line.strip() or line.startswith('#'):
            continue
        name, syms, globs = (f.strip() for f in line.split('|'))
        steps.append({'name': name, 'syms': syms.split(), 'globs': globs.split()})
    return steps


def glob_matches(pattern, path):
    return fnmatch.fnmatch(path, pattern) or path.startswith(pattern.rstrip('/') + '/')


def assign(files, steps):
    """Each file goes to the step whose matching glob is the most specific."""
    owner = {}
    for f in files:
        best = None
        for i, st in enumerate(steps):
            for g in st['globs']:
                if glob_matches(g, f) and (best is None or len(g) > best[0]):
                    best = (len(g), i)
        if best is None:
            sys.exit(f'can-patches: {f} belongs to no step of the series')
        owner[f] = best[1]
    return owner


def config_refs(line):
    return re.findall(r'\$\(CONFIG_([A-Z0-9_]+)\)', line)


def filter_makefile(text, syms, present_dirs):
    """Keep the lines whose CONFIG symbols and directories exist so far."""
    module_syms = {}
    for line in text.splitlines():
        m = re.match(r'obj-\$\(CONFIG_([A-Z0-9_]+)\)\s*\+?:?=\s*(.*)', line)
        if m:
            for obj in m.group(2).split():
                module_syms[obj[:-2] if obj.endswith('.o') else obj] = m.group(1)
    out = []
    for line in text.splitlines():
        if any(s not in syms and not s.startswith('PROC_FS') for s in config_refs(line)):
            continue
        m = re.match(r'([\w-]+)-(y|objs|\$\(CONFIG_\w+\))\s', line)
        if m and m.group(1) in module_syms and module_syms[m.group(1)] not in syms:
            continue
        d = re.match(r'obj-.*\+=\s*([\w-]+)/\s*$', line)
        if d and d.group(1) not in present_dirs:
            continue
        out.append(line)
    return '\n'.join(out) + '\n'


def filter_kconfig(text, syms, present):
    """Drop config blocks whose symbol is not introduced yet."""
    out, keep = [], True
    for line in text.splitlines():
        m = re.match(r'(menu)?config\s+(\w+)', line)
        if m:
            keep = m.group(2) in syms
        elif re.match(r'(if|endif|menu|endmenu|source|comment)\b', line):
            keep = True
            s = re.match(r'source\s+"(.*)"', line)
            if s and s.group(1) not in present:
                continue
        if keep:
            out.append(line)
    return re.sub(r'\n{3,}', '\n\n', '\n'.join(out) + '\n')


def base_repo():
    repo = os.path.join(CACHE, 'patches', 'linux-source-6.1')
    if os.path.exists(os.path.join(repo, '.git', 'refs', 'tags', 'can-base')):
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(os.path.dirname(repo), exist_ok=True)
    print('can-patches: preparing the base tree (once)', file=sys.stderr)
    subprocess.run(['tar', '-C', os.path.dirname(repo), '-xJf', TARBALL], check=True)
    git(repo, 'init', '-q')
    git(repo, 'config', 'user.name', 'CAN base')
    git(repo, 'config', 'user.email', 'can-base@localhost')
    git(repo, 'add', '-A', '-f')
    git(repo, 'commit', '-q', '-m', 'Linux 6.1 as packaged in linux-source-6.1')
    git(repo, 'tag', 'linux-orig')
    for p in MAINLINE_CAN:
        subprocess.run(['git', '-C', repo, 'rm', '-r', '-q', p], check=True)
    for hooks in HOOKS.values():
        for path, line in hooks:
            drop_line(repo, path, line)
    drop_line(repo, 'Documentation/networking/index.rst', '   can')
    git(repo, 'add', '-A', '-f')
    git(repo, 'commit', '-q', '-m', 'Remove mainline\'s CAN stack')
    git(repo, 'tag', 'can-base')
    return repo


def drop_line(repo, path, line):
    full = os.path.join(repo, path)
    lines = open(full).read().split('\n')
    if line not in lines:
        sys.exit(f'can-patches: {path} has no line {line!r}')
    lines.remove(line)
    open(full, 'w').write('\n'.join(lines))


def restore_hooks(repo, name):
    for path, _ in HOOKS.get(name, []):
        git(repo, 'checkout', 'linux-orig', '--', path)


def maintainers(repo, placed, with_credits):
    """Put our sections, listing the files placed so far, in place of
    mainline's two CAN sections, so that each patch carries its own entry."""
    full = os.path.join(repo, 'MAINTAINERS')
    git(repo, 'checkout', 'can-base', '--', 'MAINTAINERS', 'CREDITS')
    text = open(full).read()
    for title in ('CAN NETWORK DRIVERS', 'CAN NETWORK LAYER'):
        text = re.sub(r'\n' + title + r'\n(?:[A-Z]:\t.*\n)+', '\n', text)
    sections = []
    for sec in open(os.path.join(TOP, 'MAINTAINERS')).read().strip().split('\n\n'):
        lines = [ln for ln in sec.split('\n') if not ln.startswith('F:\t') or
                 any(p == ln[3:] or p.startswith(ln[3:]) for p in placed)]
        if any(ln.startswith('F:\t') for ln in lines):
            sections.append('\n'.join(lines))
    anchor = re.search(r'\nCAN-J1939 NETWORK LAYER\n', text)
    ours = ''.join(s + '\n\n' for s in sections)
    text = text[:anchor.start() + 1] + ours + text[anchor.start() + 1:]
    open(full, 'w').write(text)
    if with_credits:
        with open(os.path.join(repo, 'CREDITS'), 'a') as f:
            f.write('\n' + open(os.path.join(TOP, 'CREDITS')).read())


def build_series(repo, steps, owner, files):
    git(repo, 'checkout', '-q', '-B', 'can-series', 'can-base')
    git(repo, 'clean', '-q', '-fdx')
    name_email = [git(TOP, 'config', k).strip() for k in ('user.name', 'user.email')]
    git(repo, 'config', 'user.name', name_email[0])
    git(repo, 'config', 'user.email', name_email[1])
    syms, placed = {'PROC_FS'}, []
    for i, st in enumerate(steps):
        syms |= set(st['syms'])
        placed += [f for f in files if owner[f] == i]
        for f in placed:
            dst = os.path.join(repo, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            src_text = open(os.path.join(TOP, f), errors='surrogateescape').read()
            base = os.path.basename(f)
            if base == 'Makefile' and not f.startswith('tools/'):
                dirs = {os.path.basename(os.path.dirname(p)) for p in placed
                        if os.path.dirname(p) != os.path.dirname(f)}
                src_text = filter_makefile(src_text, syms, dirs)
            elif base == 'Kconfig':
                src_text = filter_kconfig(src_text, syms, set(placed))
            open(dst, 'w', errors='surrogateescape').write(src_text)
            shutil.copymode(os.path.join(TOP, f), dst)
        restore_hooks(repo, st['name'])
        maintainers(repo, placed, st['name'] == 'maintainers')
        git(repo, 'add', '-A', '-f')
        msg = os.path.join(SERIES, st['name'] + '.txt')
        if not git(repo, 'status', '--porcelain').strip():
            continue
        subprocess.run(['git', '-C', repo, 'commit', '-q', '-s', '-F', msg], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', default=os.path.join(TOP, 'build', 'patches'))
    ap.add_argument('--checkpatch', action='store_true')
    args = ap.parse_args()

    steps = read_series()
    files = our_files()
    owner = assign(files, steps)
    repo = base_repo()
    build_series(repo, steps, owner, files)
    shutil.rmtree(args.out, ignore_errors=True)
    git(repo, 'format-patch', '-q', '--cover-letter', '--subject-prefix=PATCH net-next',
        '-o', args.out, 'can-base..can-series')
    cover = sorted(glob.glob(os.path.join(args.out, '0000-*')))[0]
    text = open(cover).read()
    blurb = open(os.path.join(SERIES, 'cover.txt')).read().split('\n', 2)
    text = text.replace('*** SUBJECT HERE ***', blurb[0])
    text = text.replace('*** BLURB HERE ***', blurb[2].strip())
    open(cover, 'w').write(text)
    patches = sorted(glob.glob(os.path.join(args.out, '*.patch')))
    print(f'can-patches: {len(patches) - 1} patches in {args.out}; tree: {repo} (branch can-series)')
    if args.checkpatch:
        cp = '/usr/src/linux-source-6.1/scripts/checkpatch.pl'
        bad = 0
        for p in patches[1:]:
            r = subprocess.run(['perl', cp, '--strict', '--no-tree', '-q', p],
                               capture_output=True, text=True)
            if r.returncode:
                bad += 1
                print(r.stdout[-3000:])
        print(f'can-patches: checkpatch --strict: {bad} patches with findings')
        return 1 if bad else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
