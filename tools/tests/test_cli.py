"""Small decisions of tools/kunit's command line."""

from __future__ import annotations

import argparse
import tempfile
import unittest
from pathlib import Path

from kfork import cli, tree
from kfork.common import project_root


class CliTest(unittest.TestCase):
    def test_errors_name_the_overlay_file(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / 'kernel-overlay/net/sched').mkdir(parents=True)
            (root / 'kernel-overlay/net/sched/sch_pie.c').write_text('x')
            text = '/w/src/net/sched/sch_pie.c:3:1: error: x; /w/src/net/core/dev.c:1: y'
            self.assertEqual(cli._overlay_paths(text, Path('/w/src'), tree.Overlay(root)),
                             'kernel-overlay/net/sched/sch_pie.c:3:1: error: x; '
                             '/w/src/net/core/dev.c:1: y')

    def test_other_kunitconfig_builds_apart(self) -> None:
        default = argparse.Namespace(kunitconfig=project_root() / '.kunitconfig')
        self.assertEqual(cli._build_name('fork', default), 'fork')
        other = argparse.Namespace(kunitconfig=Path('/tmp/mine.kunitconfig'))
        self.assertRegex(cli._build_name('fork', other), r'^fork-mine\.kunitconfig-[0-9a-f]{8}$')

    def test_unknown_verb_is_one_line_and_exit_2(self) -> None:
        with self.assertRaises(SystemExit) as exit_:
            cli.main(['frobnicate'])
        self.assertEqual(exit_.exception.code, 2)


if __name__ == '__main__':
    unittest.main()
