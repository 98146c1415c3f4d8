#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut this tree into a patch series against linux-source-6.1.

The base is Debian's linux-source-6.1 with mainline's CAN code taken out
(one commit, not part of the series). Each step of scripts/series/series
then adds its files; Kconfig and Makefile lines appear only in the step
that brings their symbol or directory, so every prefix of the series
configures and builds. Output: git format-patch files with a cover letter
in OUT (default build/patches), and the git tree in the cache.

Every tracked file of ours must land in a step, and the series' last
commit must hold each of them exactly as this tree has it (Kconfig and
Makefiles included), or the script fails: a file or an option cannot
drop out of the series unnoticed. --checkpatch runs checkpatch.pl
--strict on every patch; --kernel-doc runs kernel-doc -none on our C
files and headers (a comment above the wrong function, an undescribed
member or parameter); --build checks out each prefix of the series
and builds it (see build_prefixes). Either fails the run on any finding.

  can-patches.py [--out DIR] [--checkpatch] [--kernel-doc] [--build] [--jobs N]
"""

import argparse
import fcntl
import fnmatch
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

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
# What the base takes out of mainline: the protocol family (net/can but
# for j1939, MAINLINE_KEPT), the headers, can.rst, and of
# drivers/net/can exactly the files ours replace (listed in
# scripts/series/replaced). Every other mainline driver stays in the
# base as it is; the "mainline-drivers" step hooks them into our Kconfig
# and Makefiles, and the "j1939" step does the same for the protocol.
MAINLINE_CAN = ['net/can', 'include/linux/can',
                'include/uapi/linux/can', 'include/uapi/linux/can.h',
                'Documentation/networking/can.rst']
MAINLINE_KEPT = ['net/can/j1939']
MAINLINE_CAN += [ln.strip() for ln in open(os.path.join(SERIES, 'replaced'))
                 if ln.strip() and not ln.startswith('#')]
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


# Tracked files that stay out of the kernel tree: the out-of-tree build,
# CI, README, the scripts; MAINTAINERS and CREDITS enter by maintainers().
OUT_OF_TREE = ['.ci/', '.gitignore', 'README.md', 'Makefile', 'Kbuild',
               'Kconfig', 'MAINTAINERS', 'CREDITS', 'scripts/']


def under(path, prefixes):
    return any(path == p or path.startswith(p.rstrip('/') + '/') for p in prefixes)


def our_files():
    """The tracked files the series carries; any tracked file that is
    neither one of them nor known to stay out of the tree is an error."""
    tracked = git(TOP, 'ls-files', '-z').split('\0')
    files, stray = [], []
    for f in filter(None, tracked):
        if under(f, KERNEL_PATHS):
            files.append(f)
        elif not under(f, OUT_OF_TREE):
            stray.append(f)
    if stray:
        sys.exit('can-patches: tracked files outside the series: ' + ' '.join(stray) +
                 '\n(add their directory to KERNEL_PATHS or OUT_OF_TREE)')
    return sorted(files)


def read_series():
    steps = []
    for line in open(os.path.join(SERIES, 'series')):
        if not line.strip() or line.startswith('#'):
            continue
        name, syms, globs = (f.strip() for f in line.split('|'))
        steps.append({'name': name, 'syms': syms.split(), 'globs': globs.split()})
    return steps


def base_paths(repo, steps, files):
    """The paths a step names that are no file of ours but exist in the
    base: mainline's code the step hooks in. A path that is neither stops
    the script. Returns, per step, the base files under its paths."""
    tree = git(repo, 'ls-tree', '-r', '--name-only', 'can-base').split('\n')
    hooked = []
    for st in steps:
        mine = []
        for g in st['globs']:
            if any(glob_matches(g, f) for f in files):
                continue
            found = [f for f in tree if glob_matches(g, f)]
            if not found:
                sys.exit(f'can-patches: step {st["name"]}: {g} matches nothing')
            mine += found
        hooked.append(mine)
    return hooked


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
    def wanted(line):
        if any(s not in syms and not s.startswith('PROC_FS') for s in config_refs(line)):
            return False
        m = re.match(r'([\w-]+)-(y|objs|\$\(CONFIG_\w+\))\s', line)
        if m and m.group(1) in module_syms and module_syms[m.group(1)] not in syms:
            return False
        d = re.match(r'obj-.*\+=\s*([\w-]+)/\s*$', line)
        return not (d and d.group(1) not in present_dirs)

    # A comment goes with the lines below it up to the next blank line,
    # and out with them if none of them stays.
    out = []
    for n, para in enumerate(text.rstrip('\n').split('\n\n')):
        lines = para.split('\n')
        code = [ln for ln in lines if ln and not ln.startswith('#')]
        kept = [ln for ln in code if wanted(ln)]
        if n and code and not kept:
            continue
        out.append('\n'.join(ln for ln in lines if ln.startswith('#') or wanted(ln)))
    return '\n\n'.join(out).rstrip('\n') + '\n'


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
    text = '\n'.join(out) + '\n'
    # An if block left empty goes, with the comment above it.
    empty = re.compile(r'(^#.*\n)*^if\b.*\n(\s*\n)*endif\b.*\n', re.M)
    while empty.search(text):
        text = empty.sub('', text)
    return re.sub(r'\n{3,}', '\n\n', text)


def base_repo():
    # Named after what it removes, so that a changed list makes a new base
    # and a tree with an older script keeps using its own.
    key = hashlib.sha1('\n'.join(MAINLINE_CAN + ['-'] + MAINLINE_KEPT).encode()).hexdigest()[:10]
    repo = os.path.join(CACHE, 'patches', 'linux-source-6.1-' + key)
    if os.path.exists(os.path.join(repo, '.git', 'refs', 'tags', 'can-base')):
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(os.path.dirname(repo), exist_ok=True)
    print('can-patches: preparing the base tree (once)', file=sys.stderr)
    # Unpacked aside: linux-source-6.1 next to REPO may be another base.
    tmp = repo + '.unpack'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    subprocess.run(['tar', '-C', tmp, '-xJf', TARBALL], check=True)
    os.rename(os.path.join(tmp, 'linux-source-6.1'), repo)
    os.rmdir(tmp)
    git(repo, 'init', '-q')
    git(repo, 'config', 'user.name', 'CAN base')
    git(repo, 'config', 'user.email', 'can-base@localhost')
    git(repo, 'add', '-A', '-f')
    git(repo, 'commit', '-q', '-m', 'Linux 6.1 as packaged in linux-source-6.1')
    git(repo, 'tag', 'linux-orig')
    for p in MAINLINE_CAN:
        subprocess.run(['git', '-C', repo, 'rm', '-r', '-q', p], check=True)
    for p in MAINLINE_KEPT:
        git(repo, 'checkout', 'linux-orig', '--', p)
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
                 any(p == ln[3:] or p.startswith(ln[3:]) or
                     fnmatch.fnmatch(p, ln[3:]) for p in placed)]
        if any(ln.startswith('F:\t') for ln in lines):
            sections.append('\n'.join(lines))
    anchor = re.search(r'\nCAN-J1939 NETWORK LAYER\n', text)
    ours = ''.join(s + '\n\n' for s in sections)
    text = text[:anchor.start() + 1] + ours + text[anchor.start() + 1:]
    open(full, 'w').write(text)
    if with_credits:
        with open(os.path.join(repo, 'CREDITS'), 'a') as f:
            f.write('\n' + open(os.path.join(TOP, 'CREDITS')).read())


def build_series(repo, steps, owner, files, hooked):
    git(repo, 'checkout', '-q', '-B', 'can-series', 'can-base')
    git(repo, 'clean', '-q', '-fdx')
    name_email = [git(TOP, 'config', k).strip() for k in ('user.name', 'user.email')]
    git(repo, 'config', 'user.name', name_email[0])
    git(repo, 'config', 'user.email', name_email[1])
    syms, placed, base = {'PROC_FS'}, [], []
    prefixes = []
    for i, st in enumerate(steps):
        syms |= set(st['syms'])
        placed += [f for f in files if owner[f] == i]
        base += hooked[i]
        syms |= set(kconfig_symbols(os.path.join(repo, f) for f in hooked[i]
                                    if os.path.basename(f) == 'Kconfig'))
        for f in placed:
            dst = os.path.join(repo, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            src_text = open(os.path.join(TOP, f), errors='surrogateescape').read()
            leaf = os.path.basename(f)
            if leaf == 'Makefile' and not f.startswith('tools/'):
                dirs = {os.path.basename(os.path.dirname(p)) for p in placed + base
                        if os.path.dirname(p) != os.path.dirname(f)}
                src_text = filter_makefile(src_text, syms, dirs)
            elif leaf == 'Kconfig':
                src_text = filter_kconfig(src_text, syms, set(placed + base))
            open(dst, 'w', errors='surrogateescape').write(src_text)
            shutil.copymode(os.path.join(TOP, f), dst)
        restore_hooks(repo, st['name'])
        maintainers(repo, placed, st['name'] == 'maintainers')
        git(repo, 'add', '-A', '-f')
        msg = os.path.join(SERIES, st['name'] + '.txt')
        if not git(repo, 'status', '--porcelain').strip():
            continue
        subprocess.run(['git', '-C', repo, 'commit', '-q', '-s', '-F', msg], check=True)
        prefixes.append((git(repo, 'rev-parse', 'HEAD').strip(), list(placed), list(base)))
    return prefixes


def kconfig_symbols(paths):
    """Map each symbol defined in the Kconfig files PATHS to its type
    ('tristate' or 'bool') if the user can set it, to None if only a
    select or default can."""
    syms = {}
    for path in paths:
        name = None
        for line in open(path):
            m = re.match(r'\s*(?:menu)?config\s+(\w+)', line)
            if m:
                name = m.group(1)
                syms[name] = None
                continue
            t = re.match(r'\s*(tristate|bool)\s+"', line)
            p = re.match(r'\s*prompt\s+"', line)
            if name and t:
                syms[name] = t.group(1)
            elif name and p and syms[name] is None:
                syms[name] = 'bool'
    return syms


def check_symbols(steps, files):
    """Each option our Kconfig files define enters with exactly one step."""
    defined = kconfig_symbols(os.path.join(TOP, f) for f in files
                              if os.path.basename(f) == 'Kconfig')
    introduced = [sym for st in steps for sym in st['syms']]
    errors = [f'{s} is introduced by no step' for s in sorted(defined)
              if s not in introduced]
    errors += [f'{s} is introduced twice' for s in sorted(set(introduced))
               if introduced.count(s) > 1]
    if errors:
        sys.exit('can-patches: scripts/series/series: ' + '; '.join(errors))


def check_final_tree(repo, files):
    """The last commit must hold every file of ours as this tree has it:
    a Kconfig block or Makefile line that never entered shows up here."""
    differ = []
    for f in files:
        with open(os.path.join(TOP, f), 'rb') as ours:
            want = ours.read()
        r = subprocess.run(['git', '-C', repo, 'show', f'can-series:{f}'],
                           capture_output=True)
        if r.returncode or r.stdout != want:
            differ.append(f)
    if differ:
        sys.exit('can-patches: the series ends with these files missing or '
                 'different from ours: ' + ' '.join(differ))


# --build: the options every prefix is configured with, on top of
# allnoconfig, besides the CAN options that prefix defines. NETDEVICES
# opens drivers/net/Kconfig, where the CAN drivers' menu sits; PCI and SPI
# carry the controller drivers; NET_SCHED and the ematch carry
# em_canid.c; KUNIT the KUnit tests; HEADERS_INSTALL and
# UAPI_HEADER_TEST compile every exported header (ours included) as
# user space sees it, with -std=c90. The rest open mainline's drivers
# on x86: TTY (slcan, can327), USB, PCMCIA, COMPILE_TEST with OF and
# COMMON_CLK (the SoC drivers), MFD_JANZ_CMODIO (janz-ican3).
BUILD_CONFIG = {'64BIT': 'y', 'SMP': 'y', 'MODULES': 'y', 'MODULE_UNLOAD': 'y',
                'NET': 'y', 'NET_NS': 'y', 'NETDEVICES': 'y', 'PROC_FS': 'y', 'SYSFS': 'y',
                'PCI': 'y', 'SPI': 'y', 'KUNIT': 'y', 'NET_SCHED': 'y',
                'NET_CLS_BASIC': 'm', 'NET_EMATCH': 'y', 'NET_EMATCH_CANID': 'm',
                'HEADERS_INSTALL': 'y', 'UAPI_HEADER_TEST': 'y',
                'TTY': 'y', 'USB_SUPPORT': 'y', 'USB': 'y', 'PCCARD': 'y', 'PCMCIA': 'y',
                'COMPILE_TEST': 'y', 'OF': 'y', 'COMMON_CLK': 'y', 'MFD_JANZ_CMODIO': 'y'}
# Mainline's drivers that the build leaves off, each with why; their
# options are set to n and their sources are not expected to be built.
# (option, source globs, reason)
MAINLINE_EXCLUDED = [
    ('CAN_MSCAN CAN_MPC5XXX', 'drivers/net/can/mscan/*.c',
     'PowerPC only (depends on PPC, and PPC_MPC52xx or PPC_MPC512x)'),
    ('CAN_TI_HECC', 'drivers/net/can/ti_hecc.c', 'ARM only (depends on ARM)'),
    ('CAN_TSCAN1', 'drivers/net/can/sja1000/tscan1.c',
     'needs ISA, which x86 offers on 32-bit kernels only'),
]
EXCLUDED_SYMS = {sym for syms, _, _ in MAINLINE_EXCLUDED for sym in syms.split()}
EXCLUDED_FILES = [g for _, globs, _ in MAINLINE_EXCLUDED for g in globs.split()]
# The warnings W=1 adds (scripts/Makefile.extrawarn): mainline's files,
# which the series keeps as they are, may have these and sparse's. Any
# other warning in them (an int-conversion, say) is taken as our headers
# not matching what they were written against, and fails the prefix.
W1_ONLY = {'-Wextra', '-Wunused', '-Wmissing-declarations', '-Wmissing-format-attribute',
           '-Wmissing-prototypes', '-Wold-style-definition', '-Wmissing-include-dirs',
           '-Wunused-but-set-variable', '-Wunused-const-variable', '-Wpacked-not-aligned',
           '-Wstringop-truncation', '-Wunused-variable', '-Wunused-function',
           '-Wunused-label', '-Wunused-macros', '-Wimplicit-fallthrough',
           '-Woverride-init', '-Wempty-body', '-Wignored-qualifiers'}
# Options that exist only once a prefix defines CONFIG_CAN.
NEEDS_CAN = {'NET_EMATCH_CANID'}
# Code outside our directories that includes CAN headers and builds on
# x86, with the option that builds it (can.txt, 7: "The patch series").
OUTSIDE_USERS = [('net/sched/em_canid.o', 'NET_EMATCH_CANID')]
OUR_DIRS = ['net/can', 'drivers/net/can']
HOOKED = {'net/can': ('net/Makefile', 'net/Kconfig'),
          'drivers/net/can': ('drivers/net/Makefile', 'drivers/net/Kconfig')}
# A kernel header that only code for other architectures includes gets
# a compile test of the way that code uses it (arch/m68k/coldfire/device.c).
HEADER_USES = {
    'include/linux/can/platform/flexcan.h':
        'static const struct flexcan_platform_data coldfire_like __used = {\n'
        '\t.clk_src = 1,\n\t.clock_frequency = 120000000,\n};\n',
}


def run_logged(cmd, log):
    """Run CMD niced, append its output to LOG; return status and output."""
    r = subprocess.run(['nice', '-n', '10'] + cmd, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    with open(log, 'a') as f:
        f.write(f'$ {" ".join(cmd)}\n{r.stdout}')
    return r.returncode, r.stdout


def sourced_kconfigs(repo):
    """The Kconfig files of our directories that the checkout reads:
    the top ones and what they source, recursively (mainline's driver
    directories lie in the tree before a step sources them)."""
    todo = [os.path.join(d, 'Kconfig') for d in OUR_DIRS
            if os.path.exists(os.path.join(repo, d, 'Kconfig'))]
    seen = []
    while todo:
        k = todo.pop(0)
        if k in seen:
            continue
        seen.append(k)
        todo += re.findall(r'^\s*source\s+"(.*)"', open(os.path.join(repo, k)).read(), re.M)
    return [os.path.join(repo, k) for k in seen]


def configure_prefix(repo, obj, log):
    """allnoconfig plus BUILD_CONFIG plus every CAN option the checkout
    defines (tristates as modules) but MAINLINE_EXCLUDED; fail if one of
    them did not take."""
    can_syms = kconfig_symbols(sourced_kconfigs(repo))
    want = {k: v for k, v in BUILD_CONFIG.items()
            if k not in NEEDS_CAN or 'CAN' in can_syms}
    want.update({s: 'm' if t == 'tristate' else 'y'
                 for s, t in can_syms.items() if t and s not in EXCLUDED_SYMS})
    want.update({s: 'n' for s in EXCLUDED_SYMS if s in can_syms})
    frag = os.path.join(obj, 'can-prefix.config')
    with open(frag, 'w') as f:
        f.writelines(f'CONFIG_{k}={v}\n' for k, v in sorted(want.items()))
    rc, out = run_logged(['make', '-C', repo, f'O={obj}', f'KCONFIG_ALLCONFIG={frag}',
                          'allnoconfig'], log)
    if rc or re.search(r'(warning|error):', out, re.I):
        return [f'allnoconfig failed or warned:\n{out[-2000:]}'], want
    config = open(os.path.join(obj, '.config')).read()
    missing = [f'CONFIG_{k}={v}' for k, v in sorted(want.items())
               if f'\nCONFIG_{k}={v}\n' not in '\n' + config and
               (v != 'n' or f'\nCONFIG_{k}=' in '\n' + config)]
    if missing:
        return ['options the configuration did not take (a missing dependency '
                'in BUILD_CONFIG?): ' + ' '.join(missing)], want
    return [], want


def header_tests(repo, obj):
    """An external-module directory with one file per kernel header of
    ours under include/linux/can: each must compile on its own, and
    HEADER_USES add the way outside code uses it. Returns the dir and
    the objects to build."""
    d = os.path.join(os.path.dirname(obj), 'patches-hdrtest')
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    objs = []
    for h in sorted(glob.glob(os.path.join(repo, 'include/linux/can/**/*.h'),
                          recursive=True)):
        rel = os.path.relpath(h, repo)
        name = 'hdr-' + re.sub(r'[^\w]', '_', rel[len('include/linux/can/'):-2])
        inc = rel[len('include/'):]
        body = f'// SPDX-License-Identifier: GPL-2.0\n#include <{inc}>\n#include <{inc}>\n'
        body += HEADER_USES.get(rel, '')
        open(os.path.join(d, name + '.c'), 'w').write(body)
        objs.append(name + '.o')
    open(os.path.join(d, 'Kbuild'), 'w').write(
        ''.join(f'obj-m += {o}\n' for o in objs))
    return d, objs


def built_sources(obj, d):
    """The .c files Kbuild compiled into the modules and built-in.a of
    our directory D, read from its .mod files and archive."""
    srcs = set()
    for order in glob.glob(os.path.join(obj, d, '**', 'modules.order'), recursive=True):
        for ko in open(order).read().split():
            mod = os.path.join(obj, ko[:-3] + '.mod')
            srcs.update(o[:-2] + '.c' for o in open(mod).read().split())
    for ar in glob.glob(os.path.join(obj, d, '**', 'built-in.a'), recursive=True):
        r = subprocess.run(['ar', 't', ar], capture_output=True, text=True)
        srcs.update(o[:-2] + '.c' for o in r.stdout.split() if o.endswith('.o'))
    return srcs


def check_hooks(repo, d):
    """The parent Makefile and Kconfig must descend into D."""
    mk, kc = (open(os.path.join(repo, p)).read() for p in HOOKED[d])
    leaf = os.path.basename(d)
    errors = []
    if not re.search(r'obj-\$\(CONFIG_CAN\)\s*\+=\s*' + leaf + r'/', mk):
        errors.append(f'{HOOKED[d][0]} does not descend into {leaf}/')
    if f'source "{d}/Kconfig"' not in kc:
        errors.append(f'{HOOKED[d][1]} does not source {d}/Kconfig')
    return errors


def is_mainline(repo, path, ours):
    """Whether a compiler or sparse finding's PATH is a file of mainline's
    that the series keeps (not one of OURS, the files placed so far)."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(repo))
    return under(rel, ['drivers/net/can'] + MAINLINE_KEPT) and rel not in ours


def build_prefix(repo, obj, log, jobs, placed, base):
    """Configure and build one checked-out prefix; return its findings
    and the warnings in mainline's files, which are tolerated."""
    errors, want = configure_prefix(repo, obj, log)
    if errors:
        return errors, []
    # drivers/net/can is in the base (mainline's drivers) before a step
    # puts a file of ours there and hooks it in.
    dirs = [d for d in OUR_DIRS if any(under(f, [d]) for f in placed)]
    for d in dirs:
        errors += check_hooks(repo, d)
    targets = [d + '/' for d in dirs] + ['usr/']
    targets += [o for o, sym in OUTSIDE_USERS if sym in want]
    make = ['make', '-C', repo, f'O={obj}', f'-j{jobs}', '-k', 'W=1', 'C=1']
    rc, out = run_logged(make + targets, log)
    hdr_dir, hdr_objs = header_tests(repo, obj)
    rc2, out2 = run_logged(make + [f'M={hdr_dir}'] + hdr_objs, log) if hdr_objs else (0, '')
    findings, tolerated = [], []
    # Sparse names the header a warning ends up in (an inline function of
    # netdevice.h, say) and, on the line before, the file it checked.
    checked = None
    for ln in (out + out2).splitlines():
        note = re.match(r'([^\s:]+\.c): note: in included file', ln)
        if note:
            checked = note.group(1)
            continue
        source, checked = checked, None
        if not re.search(r'(warning|error):|\*\*\*', ln, re.I):
            continue
        where = re.match(r'([^\s:]+\.[ch]):\d+:(\d+:)? warning:.*?(\[(-W[\w-]+)[=\]])?$', ln)
        if (where and where.group(4) in W1_ONLY | {None} and
                any(f and is_mainline(repo, os.path.join(obj, f), placed)
                    for f in (where.group(1), source))):
            tolerated.append(ln)
        else:
            findings.append(ln)
    if rc or rc2 or findings:
        errors.append('build failed or warned:\n' + '\n'.join(findings[:40] or
                                                               (out + out2)[-3000:].splitlines()))
    excluded = [f for f in base if any(fnmatch.fnmatch(f, g) for g in EXCLUDED_FILES)]
    for d in dirs if not errors else []:
        sources = {f for f in placed + base if under(f, [d]) and f.endswith('.c')}
        unbuilt = sorted(sources - set(excluded) - built_sources(obj, d))
        if unbuilt:
            errors.append('sources no module or built-in.a holds: ' + ' '.join(unbuilt))
    return errors, tolerated


def check_outside_refs(repo):
    """Code outside our directories may name CAN options (a Kconfig
    dependency, a Makefile hook, IS_ENABLED in a header); each one it
    names must exist at the end of the series (whose Kconfig files are
    ours, as check_final_tree made sure). Defconfigs do not count. Returns the references found and the errors."""
    ours = kconfig_symbols(sourced_kconfigs(repo))
    outside = [':(exclude)' + p for p in KERNEL_PATHS]
    outside.append(':(exclude,glob)arch/*/configs/**')
    code = subprocess.run(['git', '-C', repo, 'grep', '-n', '-w', '-E',
                           'CONFIG_CAN(_[A-Z0-9_]+)?', 'can-series', '--', '.'] + outside,
                          capture_output=True, text=True).stdout
    kconf = subprocess.run(['git', '-C', repo, 'grep', '-n', '-E',
                            r'^\s*(depends on|select|imply|default|if|visible if)\b'
                            r'.*\bCAN(_[A-Z0-9_]+)?\b', 'can-series', '--', '*Kconfig*'] + outside,
                           capture_output=True, text=True).stdout
    refs, errors = [], []
    for line in (code + kconf).splitlines():
        where = line.split(':', 3)
        for sym in set(re.findall(r'(?:\bCONFIG_|\b)(CAN(?:_[A-Z0-9_]+)?)\b', where[3])):
            refs.append(f'{where[1]}:{where[2]}: {sym}')
            if sym not in ours:
                errors.append(f'{where[1]}:{where[2]} names {sym}, which the series lacks')
    return refs, errors


def build_prefixes(repo, jobs, prefixes):
    """Check out each prefix of the series in the cached tree and build
    our directories, the outside users of CAN headers, the exported
    headers and the kernel header tests in one object directory (reused,
    so each prefix rebuilds only what changed). Returns the number of
    failing prefixes."""
    obj = os.path.join(CACHE, 'patches-obj-' + os.path.basename(repo).split('-')[-1])
    os.makedirs(obj, exist_ok=True)
    log = os.path.join(CACHE, 'patches-build.log')
    open(log, 'w').close()
    commits = git(repo, 'rev-list', '--reverse', 'can-base..can-series').split()
    if commits != [p[0] for p in prefixes]:
        sys.exit('can-patches: the series in the cache is not the one just made')
    bad, total = 0, time.time()
    refs, errors = check_outside_refs(repo)
    print('can-patches: CAN options named outside our directories: ' + '; '.join(refs))
    for e in errors:
        print('    ' + e)
    bad += bool(errors)
    try:
        for n, (sha, placed, base) in enumerate(prefixes, 1):
            subject = git(repo, 'log', '-1', '--format=%s', sha).strip()
            git(repo, 'checkout', '-q', '--detach', sha)
            start = time.time()
            errors, tolerated = build_prefix(repo, obj, log, jobs, placed, base)
            status = 'FAIL' if errors else 'ok'
            print(f'can-patches: build {n:2}/{len(commits)} {status:4} '
                  f'{time.time() - start:4.0f}s  {subject}', flush=True)
            for e in errors:
                print('    ' + e.replace('\n', '\n    '))
            if tolerated:
                print(f'    {len(tolerated)} warnings in mainline\'s own files, '
                      'tolerated:\n      ' + '\n      '.join(sorted(set(tolerated))))
            bad += bool(errors)
    finally:
        git(repo, 'checkout', '-q', 'can-series')
    print(f'can-patches: built {len(commits)} prefixes in {time.time() - total:.0f}s, '
          f'{bad} failed (log: {log})')
    return bad


def checkpatch(repo, patches):
    """checkpatch.pl --strict on each patch; returns how many have findings
    (any error, warning or check makes checkpatch exit non-zero). The
    script comes from the base tree, which is unpacked by then; a missing
    script or perl is an error of its own, never counted as a finding."""
    cp = os.path.join(repo, 'scripts', 'checkpatch.pl')
    if not os.path.isfile(cp):
        sys.exit(f'can-patches: no checkpatch.pl at {cp}')
    if not shutil.which('perl'):
        sys.exit('can-patches: perl is not installed (checkpatch.pl needs it)')
    bad = 0
    for p in patches:
        r = subprocess.run(['perl', cp, '--strict', '--no-tree', '-q', p],
                           capture_output=True, text=True)
        if r.returncode:
            bad += 1
            print(r.stdout[-3000:] or r.stderr[-3000:])
    print(f'can-patches: checkpatch --strict: {bad} patches with findings')
    return bad


# The sources kernel-doc reads: every C file and header of ours in the
# kernel's CAN directories and the exported headers.
KERNEL_DOC_PATHS = ['net/can', 'drivers/net/can', 'include/linux/can',
                    'include/uapi/linux/can', 'include/uapi/linux/can.h']


def kernel_doc(repo, files):
    """scripts/kernel-doc -none on our C files and headers; returns how
    many warnings it printed. Its warnings include a comment whose name
    is not that of the function, struct, enum or typedef below it (a
    comment left above the wrong one), and a member or parameter the
    comment does not describe. Like checkpatch it comes from the base
    tree; a missing script or perl ends the run with its own message."""
    kd = os.path.join(repo, 'scripts', 'kernel-doc')
    if not os.path.isfile(kd):
        sys.exit(f'can-patches: no kernel-doc at {kd}')
    if not shutil.which('perl'):
        sys.exit('can-patches: perl is not installed (kernel-doc needs it)')
    srcs = [f for f in files if under(f, KERNEL_DOC_PATHS) and f.endswith(('.c', '.h'))]
    # With -none it prints nothing but findings. -Werror makes it exit
    # non-zero on one; every line it prints counts all the same (but its
    # own total), so that no finding passes for a clean run.
    r = subprocess.run(['perl', kd, '-none', '-Werror'] + srcs, cwd=TOP,
                       capture_output=True, text=True)
    found = [ln for ln in (r.stdout + r.stderr).splitlines()
             if ln.strip() and not re.match(r'\d+ warnings as Errors$', ln)]
    for ln in found:
        print(ln)
    if r.returncode and not found:
        print(f'can-patches: kernel-doc failed (exit {r.returncode}):\n{r.stderr[-2000:]}')
        found = ['kernel-doc failed']
    print(f'can-patches: kernel-doc -none on {len(srcs)} files: {len(found)} warnings')
    return len(found)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', default=os.path.join(TOP, 'build', 'patches'))
    ap.add_argument('--checkpatch', action='store_true')
    ap.add_argument('--kernel-doc', action='store_true',
                    help='run scripts/kernel-doc -none on our sources')
    ap.add_argument('--build', action='store_true',
                    help='build every prefix of the series')
    ap.add_argument('--jobs', type=int, default=os.cpu_count())
    args = ap.parse_args()

    # One run at a time: they share the cached tree and object directory.
    os.makedirs(CACHE, exist_ok=True)
    lock = open(os.path.join(CACHE, 'patches.lock'), 'w')
    fcntl.flock(lock, fcntl.LOCK_EX)
    steps = read_series()
    files = our_files()
    owner = assign(files, steps)
    check_symbols(steps, files)
    repo = base_repo()
    hooked = base_paths(repo, steps, files)
    prefixes = build_series(repo, steps, owner, files, hooked)
    check_final_tree(repo, files)
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
    failed = 0
    if args.checkpatch:
        failed += checkpatch(repo, patches[1:])
    if args.kernel_doc:
        failed += bool(kernel_doc(repo, files))
    if args.build:
        failed += build_prefixes(repo, args.jobs, prefixes)
    return 1 if failed else 0

if __name__ == '__main__':
    sys.exit(main())
