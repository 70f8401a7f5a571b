"""kunit_lint: a skip that can follow an expectation in a case is refused."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from typing import List

from kfork import kunit_lint

HELPERS = '''
static void expects_inside(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1, 1);
}

static int skips_inside(struct kunit *test)
{
	if (slow())
		kunit_skip(test, "slow");
	return 0;
}

#define CHECK_ONE(test, x) \\
	KUNIT_EXPECT_EQ(test, x, 1)
'''


def lint(body: str) -> List[kunit_lint.Finding]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / 'case_kunit.c'
        path.write_text(HELPERS + 'static void the_case(struct kunit *test)\n{\n' + body + '}\n')
        return [f for f in kunit_lint.findings(kunit_lint.read_functions([path]))
                if f.function == 'the_case']


class KunitLintTest(unittest.TestCase):
    def test_skip_after_an_expectation(self) -> None:
        found = lint('\tKUNIT_EXPECT_EQ(test, a, 1);\n\tkunit_skip(test, "why");\n')
        self.assertEqual(len(found), 1)
        self.assertEqual((found[0].skip, found[0].expect), ('kunit_skip', 'KUNIT_EXPECT_EQ'))
        self.assertEqual(found[0].expect_line + 1, found[0].line)
        self.assertIn('the_case()', str(found[0]))

    def test_skip_first_is_fine(self) -> None:
        self.assertEqual(lint('\tkunit_skip(test, "why");\n\tKUNIT_EXPECT_EQ(test, a, 1);\n'), [])

    def test_assertions_are_no_risk(self) -> None:
        self.assertEqual(lint('\tKUNIT_ASSERT_EQ(test, a, 1);\n\tkunit_skip(test, "why");\n'), [])

    def test_an_expecting_helper_counts(self) -> None:
        found = lint('\texpects_inside(test);\n\tkunit_mark_skipped(test, "why");\n')
        self.assertEqual([(f.skip, f.expect) for f in found],
                         [('kunit_mark_skipped', 'expects_inside')])

    def test_a_skipping_helper_counts(self) -> None:
        found = lint('\tKUNIT_FAIL(test, "no");\n\tskips_inside(test);\n')
        self.assertEqual([(f.skip, f.expect) for f in found], [('skips_inside', 'KUNIT_FAIL')])

    def test_a_macro_that_expects_counts(self) -> None:
        found = lint('\tCHECK_ONE(test, a);\n\tkunit_skip(test, "why");\n')
        self.assertEqual([f.expect for f in found], ['CHECK_ONE'])

    def test_a_skip_among_the_arguments_runs_first(self) -> None:
        self.assertEqual(lint('\tKUNIT_EXPECT_EQ(test, skips_inside(test), 0);\n'), [])

    def test_comments_and_strings_are_not_code(self) -> None:
        body = ('\t/* KUNIT_EXPECT_EQ(test, a, 1); */\n'
                '\tkunit_info(test, "KUNIT_EXPECT_EQ(");\n'
                '\tkunit_skip(test, "why");\n')
        self.assertEqual(lint(body), [])

    def test_the_overlay_is_clean(self) -> None:
        root = Path(__file__).resolve().parents[2] / 'kernel-overlay'
        sources = kunit_lint.kunit_sources([root])
        self.assertTrue(sources)
        self.assertEqual([str(f) for f in kunit_lint.findings(kunit_lint.read_functions(sources))],
                         [])


if __name__ == '__main__':
    unittest.main()
