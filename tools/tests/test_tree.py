"""The work-area tree: unpack once, branches, sync, patches, bad input."""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
import unittest
from pathlib import Path

from kfork import tree
from kfork.common import ToolError, WorkArea

MAKEFILE = 'obj-y += a.o\nobj-y += b.o\n'
PATCH = """\
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Tester <t@example.org>
Date: Thu, 3 Dec 2026 07:55:18 +0000
Subject: [PATCH] net/sched: build the suite

Why the line is there.
---
 net/sched/Makefile | 1 +
 1 file changed, 1 insertion(+)

diff --git a/net/sched/Makefile b/net/sched/Makefile
--- a/net/sched/Makefile
+++ b/net/sched/Makefile
@@ -1,2 +1,3 @@
 obj-y += a.o
 obj-y += b.o
+obj-y += a_kunit.o
"""


def git(path: Path, *args: str) -> str:
    return subprocess.run(['git', '-C', str(path), *args], check=True, text=True,
                          capture_output=True).stdout.strip()


class TreeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        base = Path(self.tmp.name)
        # A tiny "distro source" tarball with a top-level folder, as Debian's.
        src = base / 'pkg' / 'linux-source-6.1'
        (src / 'net/sched').mkdir(parents=True)
        (src / 'net/sched/Makefile').write_text(MAKEFILE)
        (src / 'net/sched/sch_pie.c').write_text('upstream pie\n')
        self.tarball = base / 'linux-source-6.1.tar.xz'
        with tarfile.open(self.tarball, 'w:xz') as tar:
            tar.add(src, arcname='linux-source-6.1')
        self.work = WorkArea(base / 'work')
        self.project = base / 'project'
        (self.project / 'kernel-overlay/net/sched').mkdir(parents=True)
        (self.project / 'patches').mkdir()
        self.write('kernel-overlay/net/sched/sch_pie.c', 'fork pie\n')
        self.write('kernel-overlay/net/sched/a_kunit.c', 'test\n')
        self.write('patches/0001-build.patch', PATCH)
        self.overlay = tree.Overlay(self.project)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write(self, rel: str, text: str) -> None:
        (self.project / rel).write_text(text)

    def tree(self, version: str = '6.1.1-1') -> tree.Tree:
        return tree.ensure_tree(self.work, version, self.tarball)

    def test_unpack_makes_pristine_upstream_commit(self) -> None:
        t = self.tree()
        self.assertEqual(t.version(), '6.1.1-1')
        self.assertEqual(git(t.path, 'rev-list', '--count', 'upstream'), '1')
        self.assertIn('6.1.1-1', git(t.path, 'log', '-1', '--format=%s', 'upstream'))
        self.assertEqual((t.path / 'net/sched/sch_pie.c').read_text(), 'upstream pie\n')
        self.assertFalse((self.work.root / 'src.tmp').exists())

    def test_second_call_reuses_the_tree(self) -> None:
        first = self.tree()
        marker = first.path / 'untracked-marker'
        marker.write_text('x')
        self.tree()
        self.assertTrue(marker.exists())

    def test_new_version_keeps_the_old_tree(self) -> None:
        self.tree('6.1.1-1')
        t = self.tree('6.1.2-1')
        self.assertEqual(t.version(), '6.1.2-1')
        self.assertTrue((self.work.root / 'src-6.1.1-1/.git').is_dir())

    def test_fork_is_upstream_plus_overlay_plus_patches(self) -> None:
        t = self.tree()
        tree.sync(t, self.overlay, 'fork')
        self.assertEqual(t.current_branch(), 'fork')
        self.assertEqual((t.path / 'net/sched/sch_pie.c').read_text(), 'fork pie\n')
        self.assertIn('a_kunit.o', (t.path / 'net/sched/Makefile').read_text())
        subjects = git(t.path, 'log', '--format=%s', 'upstream..fork').splitlines()
        self.assertEqual(subjects, ['net/sched: build the suite',
                                    "kernel-overlay: the project's files"])
        self.assertEqual(git(t.path, 'log', '-1', '--format=%an', 'fork'), 'Tester')

    def test_release_string_does_not_follow_the_commit(self) -> None:
        t = self.tree()
        tree.sync(t, self.overlay, 'fork')
        self.assertEqual((t.path / '.scmversion').read_text(), '-kfork\n')
        self.assertEqual(t.local_edits(), [])

    def test_upstream_impl_takes_only_the_suites(self) -> None:
        t = self.tree()
        tree.sync(t, self.overlay, 'upstream-impl')
        self.assertEqual((t.path / 'net/sched/sch_pie.c').read_text(), 'upstream pie\n')
        self.assertEqual((t.path / 'net/sched/a_kunit.c').read_text(), 'test\n')
        self.assertIn('a_kunit.o', (t.path / 'net/sched/Makefile').read_text())

    def test_unchanged_rerun_adds_nothing_and_touches_nothing(self) -> None:
        t = self.tree()
        first = tree.sync(t, self.overlay, 'fork')
        pie = t.path / 'net/sched/sch_pie.c'
        mtime = pie.stat().st_mtime_ns
        self.assertEqual(tree.sync(t, self.overlay, 'fork'), first)
        self.assertEqual(pie.stat().st_mtime_ns, mtime)

    def test_edit_adds_one_commit(self) -> None:
        t = self.tree()
        first = tree.sync(t, self.overlay, 'fork')
        self.write('kernel-overlay/net/sched/sch_pie.c', 'fork pie v2\n')
        second = tree.sync(t, self.overlay, 'fork')
        self.assertEqual(git(t.path, 'rev-parse', f'{second}^'), first)
        self.assertEqual((t.path / 'net/sched/sch_pie.c').read_text(), 'fork pie v2\n')

    def test_switching_variants_and_back(self) -> None:
        t = self.tree()
        tree.sync(t, self.overlay, 'fork')
        tree.sync(t, self.overlay, 'upstream-impl')
        self.assertEqual((t.path / 'net/sched/sch_pie.c').read_text(), 'upstream pie\n')
        tree.sync(t, self.overlay, 'fork')
        self.assertEqual((t.path / 'net/sched/sch_pie.c').read_text(), 'fork pie\n')

    def test_failing_patch_names_patch_and_file_and_changes_nothing(self) -> None:
        t = self.tree()
        first = tree.sync(t, self.overlay, 'fork')
        self.write('patches/0002-bad.patch', PATCH.replace('obj-y += b.o', 'obj-y += c.o'))
        with self.assertRaises(ToolError) as err:
            tree.sync(t, self.overlay, 'fork')
        self.assertIn('patches/0002-bad.patch', str(err.exception))
        self.assertIn('net/sched/Makefile', str(err.exception))
        self.assertEqual(t.rev('refs/heads/fork'), first)
        self.assertEqual(t.local_edits(), [])

    def test_overlay_file_that_replaces_nothing_is_an_error(self) -> None:
        t = self.tree()
        self.write('kernel-overlay/net/sched/sch_nope.c', 'x\n')
        with self.assertRaises(ToolError) as err:
            tree.sync(t, self.overlay, 'fork')
        self.assertIn('kernel-overlay/net/sched/sch_nope.c', str(err.exception))

    def test_local_edits_in_the_tree_are_kept_and_refused(self) -> None:
        t = self.tree()
        tree.sync(t, self.overlay, 'fork')
        (t.path / 'net/sched/Makefile').write_text('edited\n')
        with self.assertRaises(ToolError) as err:
            tree.sync(t, self.overlay, 'fork')
        self.assertIn('net/sched/Makefile', str(err.exception))
        self.assertEqual((t.path / 'net/sched/Makefile').read_text(), 'edited\n')

    def test_export_series(self) -> None:
        t = self.tree()
        tree.sync(t, self.overlay, 'fork')
        out = Path(self.tmp.name) / 'series'
        names = tree.export_series(t, 'fork', out)
        self.assertEqual(len(names), 2)
        self.assertTrue(all(Path(n).is_file() for n in names))


if __name__ == '__main__':
    unittest.main()
