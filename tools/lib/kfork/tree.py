"""The unpacked distro tree as a git repository, and the overlay synced into it.

Branches of the tree:
  upstream       the pristine Debian source, one commit naming the version
  fork           upstream + kernel-overlay/ + patches/, as commits
  upstream-impl  upstream + the overlay's KUnit suites + patches/: the same
                 tests run against the distro's own implementation files

A sync builds the wanted tree in a private index, so a failing patch
leaves branches and checkout as they were, and records it as a new
commit only when it differs from the branch tip: an unchanged overlay
touches no file, and make rebuilds nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

from .common import (FORK, PACKAGE, TARBALL, UPSTREAM_IMPL, VARIANTS, ToolError, WorkArea,
                     project_root, run, say)

UPSTREAM = 'upstream'
VERSION_KEY = 'kfork.version'
SCMVERSION = '-kfork\n'
_TEST_FILE = re.compile(r'_kunit\.[ch]$')


def is_test_file(path: str) -> bool:
    """KUnit suites are named *_kunit.[ch]; every other file implements."""
    return bool(_TEST_FILE.search(path))


@dataclass(frozen=True)
class Overlay:
    """The project's side: kernel-overlay/ files and the hook patches."""

    root: Path

    @property
    def files_dir(self) -> Path:
        return self.root / 'kernel-overlay'

    @property
    def patch_dir(self) -> Path:
        return self.root / 'patches'

    def files(self, variant: str) -> List[str]:
        """Tree paths the variant takes from the overlay, sorted."""
        if not self.files_dir.is_dir():
            return []
        paths = sorted(str(p.relative_to(self.files_dir))
                       for p in self.files_dir.rglob('*') if p.is_file())
        if variant == UPSTREAM_IMPL:
            return [p for p in paths if is_test_file(p)]
        return paths

    def patches(self) -> List[Path]:
        if not self.patch_dir.is_dir():
            return []
        return sorted(self.patch_dir.glob('*.patch'))


class Tree:
    """Git operations on the unpacked kernel tree."""

    def __init__(self, path: Path):
        self.path = path

    def git(self, *args: str, env: Optional[Mapping[str, str]] = None,
            stdin: Optional[str] = None, check: bool = True) -> str:
        full = None if env is None else {**os.environ, **env}
        proc = run(['git', '-C', str(self.path), *args], env=full, stdin=stdin,
                   check=check)
        return proc.stdout.strip()

    def version(self) -> str:
        return self.git('config', '--get', VERSION_KEY, check=False)

    def rev(self, ref: str) -> str:
        return self.git('rev-parse', '-q', '--verify', ref, check=False)

    def current_branch(self) -> str:
        return self.git('symbolic-ref', '-q', '--short', 'HEAD', check=False)

    def local_edits(self) -> List[str]:
        out = run(['git', '-C', str(self.path), 'status', '--porcelain',
                   '--untracked-files=no']).stdout
        return [line[3:] for line in out.splitlines() if line.strip()]


def unpack(work: WorkArea, version: str, tarball: Path = TARBALL) -> Tree:
    """Unpack the tarball into a new tree whose upstream branch is pristine.

    Works in src.tmp and renames at the end, so an interrupted unpack is
    redone from scratch next time instead of leaving half a tree.
    """
    tmp = work.root / 'src.tmp'
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    say(f'unpacking {tarball.name} ({PACKAGE} {version}) into {work.src} (about a minute)')
    run(['tar', '-xJf', str(tarball), '-C', str(tmp), '--strip-components=1'])
    tree = Tree(tmp)
    run(['git', 'init', '-q', '-b', UPSTREAM, str(tmp)])
    for key, value in (('user.name', 'kfork'), ('user.email', 'kfork@localhost'),
                       ('gc.auto', '0'), (VERSION_KEY, version)):
        tree.git('config', key, value)
    say('recording the pristine source as branch upstream (about a minute)')
    tree.git('add', '-A', '-f')
    tree.git('commit', '-q', '-m', f'upstream: Debian {PACKAGE} {version}', '-m',
             f'The pristine {tarball} of Debian package {PACKAGE}, version {version}.')
    tmp.rename(work.src)
    return Tree(work.src)


def ensure_tree(work: WorkArea, version: str, tarball: Path = TARBALL) -> Tree:
    """The tree for the installed version, unpacking it once per version."""
    work.root.mkdir(parents=True, exist_ok=True)
    if work.src.is_dir():
        tree = Tree(work.src)
        have = tree.version()
        if have == version:
            return tree
        if have:
            old = work.root / f'src-{have}'
            say(f'{PACKAGE} {version} is installed; the tree in {work.src} is {have}: '
                f'keeping it as {old} and unpacking {version}')
            if old.exists():
                raise ToolError(f'{old} is in the way: remove it to unpack {version}')
            work.src.rename(old)
        else:
            raise ToolError(f'{work.src} is not a tree made by this tool '
                            f'(no {VERSION_KEY}): move it away or set KFORK_WORK')
    return unpack(work, version, tarball)


def _apply_error(patch: Path, stderr: str) -> str:
    lines = [line.removeprefix('error: ') for line in stderr.splitlines()
             if line.startswith('error: ')]
    return f'patches/{patch.name} does not apply: {lines[0] if lines else stderr.strip()}'


def _mailinfo(tree: Tree, patch: Path) -> Dict[str, str]:
    """Author, date and message of a format-patch file."""
    with tempfile.TemporaryDirectory() as tmp:
        msg, body = Path(tmp) / 'msg', Path(tmp) / 'patch'
        head = tree.git('mailinfo', str(msg), str(body),
                        stdin=patch.read_text(encoding='utf-8'))
        info = dict(line.split(': ', 1) for line in head.splitlines() if ': ' in line)
        info['message'] = info.get('Subject', patch.stem) + '\n\n' + msg.read_text()
    return info


class _Series:
    """Commits built in a private index on top of upstream."""

    def __init__(self, tree: Tree, index: Path):
        self.tree = tree
        self.env = {'GIT_INDEX_FILE': str(index)}
        self.head = tree.rev(UPSTREAM)
        tree.git('read-tree', UPSTREAM, env=self.env)

    def commit(self, message: str, author: Optional[Dict[str, str]] = None) -> None:
        tree_id = self.tree.git('write-tree', env=self.env)
        env = dict(self.env)
        if author:
            env.update(GIT_AUTHOR_NAME=author.get('Author', 'kfork'),
                       GIT_AUTHOR_EMAIL=author.get('Email', 'kfork@localhost'),
                       GIT_AUTHOR_DATE=author.get('Date', ''))
            if not env['GIT_AUTHOR_DATE']:
                del env['GIT_AUTHOR_DATE']
        self.head = self.tree.git('commit-tree', tree_id, '-p', self.head,
                                  env=env, stdin=message)

    def add_files(self, root: Path, paths: Sequence[str]) -> None:
        shas = self.tree.git('hash-object', '-w', '--stdin-paths',
                             stdin=''.join(f'{root / p}\n' for p in paths)).split()
        info = ''.join(f'100644 {sha}\t{p}\n' for sha, p in zip(shas, paths))
        self.tree.git('update-index', '--add', '--index-info', env=self.env, stdin=info)

    def apply(self, patch: Path) -> None:
        proc = run(['git', '-C', str(self.tree.path), 'apply', '--cached', str(patch)],
                   env={**os.environ, **self.env}, check=False)
        if proc.returncode != 0:
            raise ToolError(_apply_error(patch, proc.stderr))


def _check_replacements(tree: Tree, overlay: Overlay, paths: Sequence[str]) -> None:
    """Implementation files replace upstream's: each must exist there."""
    impl = [p for p in paths if not is_test_file(p)]
    if not impl:
        return
    known = set(tree.git('ls-tree', '-r', '--name-only', UPSTREAM, '--', *impl).splitlines())
    for path in impl:
        if path not in known:
            raise ToolError(f'{overlay.files_dir.name}/{path}: no such file in '
                            f'{PACKAGE} {tree.version()} to replace (only *_kunit.[ch] '
                            f'suites may add files)')


def _project_rev(root: Path) -> str:
    proc = run(['git', '-C', str(root), 'describe', '--always', '--dirty', '--abbrev=12'],
               check=False)
    return proc.stdout.strip() or 'an uncommitted checkout'


def build_series(tree: Tree, overlay: Overlay, variant: str) -> str:
    """Commit upstream + overlay + patches; return the last commit."""
    paths = overlay.files(variant)
    _check_replacements(tree, overlay, paths)
    with tempfile.TemporaryDirectory() as tmp:
        series = _Series(tree, Path(tmp) / 'index')
        if paths:
            series.add_files(overlay.files_dir, paths)
            what = 'the project\'s files' if variant == FORK else 'the project\'s KUnit suites'
            series.commit(f'kernel-overlay: {what}\n\n'
                          + ''.join(f'  {p}\n' for p in paths)
                          + f'\nFrom the project at {_project_rev(overlay.root)}.\n')
        for patch in overlay.patches():
            series.apply(patch)
            series.commit(*_patch_message(tree, patch))
    return series.head


def _patch_message(tree: Tree, patch: Path) -> tuple[str, Dict[str, str]]:
    info = _mailinfo(tree, patch)
    return info['message'], info


def sync(tree: Tree, overlay: Overlay, variant: str) -> str:
    """Bring branch `variant` to upstream + overlay + patches and check it out.

    Returns the new commit, or the old tip when nothing changed.
    """
    if variant not in VARIANTS:
        raise ToolError(f'unknown variant {variant!r}')
    edits = tree.local_edits()
    if edits:
        raise ToolError(f'{tree.path} has local edits ({", ".join(edits[:3])}): edit '
                        f'kernel-overlay/ instead; `git -C {tree.path} stash` keeps them')
    wanted = build_series(tree, overlay, variant)
    tip = tree.rev(f'refs/heads/{variant}')
    if not tip:
        new = wanted
        say(f'created branch {variant} ({len(tree.git("rev-list", f"{UPSTREAM}..{new}").split())} '
            f'commits on {UPSTREAM})')
    elif tree.rev(f'{tip}^{{tree}}') == tree.rev(f'{wanted}^{{tree}}'):
        new = tip
    else:
        stat = tree.git('diff', '--stat', tip, wanted)
        new = tree.git('commit-tree', f'{wanted}^{{tree}}', '-p', tip,
                       stdin=f'kfork: sync kernel-overlay and patches\n\n'
                             f'From the project at {_project_rev(overlay.root)}.\n\n{stat}\n')
        say(f'branch {variant}: new commit {new[:12]} ({stat.splitlines()[-1].strip()})')
    if tree.current_branch() == variant:
        if new != tip:
            tree.git('reset', '-q', '--keep', new)
    else:
        tree.git('update-ref', f'refs/heads/{variant}', new)
        tree.git('checkout', '-q', variant)
    _pin_release(tree)
    return new


def _pin_release(tree: Tree) -> None:
    """Keep the kernel release string off the commit id.

    With LOCALVERSION_AUTO, scripts/setlocalversion appends the tree's
    HEAD, so every switch between variants would change the release,
    recompile what includes it and relink. An (untracked) .scmversion
    replaces that suffix with a fixed one.
    """
    pin = tree.path / '.scmversion'
    if not pin.is_file() or pin.read_text() != SCMVERSION:
        pin.write_text(SCMVERSION)


def export_series(tree: Tree, variant: str, outdir: Path) -> List[str]:
    """Write `git format-patch upstream..variant` into outdir."""
    if not tree.rev(f'refs/heads/{variant}'):
        raise ToolError(f'branch {variant} does not exist yet: run tools/kunit run first')
    outdir.mkdir(parents=True, exist_ok=True)
    out = tree.git('format-patch', '--no-signature', '-o', str(outdir.resolve()),
                   f'{UPSTREAM}..{variant}')
    return out.splitlines()


def default_overlay() -> Overlay:
    return Overlay(project_root())
