"""The two builds' names come from one definition (common.VARIANTS)."""

from __future__ import annotations

import re
import unittest

from kfork import cli, common, tree, vm_cli
from kfork.common import FORK, UPSTREAM_IMPL, VARIANTS, project_root

# A variant's name as a whole string literal in Python source.
_LITERAL = re.compile(r'''(['"])(%s)\1''' % '|'.join(map(re.escape, VARIANTS)))


class VariantsTest(unittest.TestCase):
    def test_names_are_spelled_in_common_only(self) -> None:
        root = project_root()
        sources = [*sorted((root / 'tools/lib/kfork').glob('*.py')),
                   *(root / 'tools' / name for name in ('kunit', 'vm', 'coverage', 'measure'))]
        for path in sources:
            if path.name == 'common.py':
                continue
            with self.subTest(path=str(path.relative_to(root))):
                self.assertEqual(_LITERAL.findall(path.read_text()), [])

    def test_tables_show_both(self) -> None:
        self.assertEqual(sorted(common.COLUMNS), sorted(VARIANTS))

    def test_sync_refuses_another_name(self) -> None:
        with self.assertRaises(common.ToolError):
            tree.sync(tree.Tree(project_root()), tree.default_overlay(), 'upstream')

    def test_upstream_impl_option_picks_the_variant(self) -> None:
        for parse in (cli._parser().parse_args, vm_cli._parser().parse_args):
            self.assertEqual(parse(['run']).variant, FORK)
        self.assertEqual(cli._parser().parse_args(['run', '--upstream-impl']).variant,
                         UPSTREAM_IMPL)
        self.assertEqual(cli._parser().parse_args(['sync', '--upstream-impl']).variant,
                         UPSTREAM_IMPL)
        self.assertEqual(vm_cli._parser().parse_args(['test', '--upstream-impl']).variant,
                         UPSTREAM_IMPL)
        self.assertEqual(vm_cli._parser().parse_args(['run', '--upstream-impl', 'true']).variant,
                         UPSTREAM_IMPL)


if __name__ == '__main__':
    unittest.main()
