"""The mutant generator of tools/mutate on small C files."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from kfork import coverage, mutants
from kfork.mutants import (CONST, EQ_FLIP, IF_NEGATE, LOGIC_SWAP, ROR_BOUNDARY, SHIFT,
                           STMT_DELETE, TERNARY_SWAP)

PATH = 'net/sched/sch_x.c'

# Every operator once or more, in a function body.
CODE = """\
static int f(int a, int b, int *p)
{
	int x = 0x1fU;

	if (a < b && b >= 3)
		x = a ? b : 7;
	x <<= 2;
	x = b >> 1;
	p[0] = a == b || a != 1UL;
	g(x);
	x++;
	return x > 0 ? x : -1;
}
"""


def generate(text: str) -> mutants.FileMutants:
    return mutants.generate(PATH, text)


def edits(text: str, operator: Optional[str] = None) -> List[Tuple[int, str, str, str]]:
    """(line, operator, original, replacement) of each mutant."""
    return [(m.line, m.operator, m.original, m.replacement) for m in generate(text).mutants
            if operator is None or m.operator == operator]


def body(lines: str) -> str:
    """lines as the body of a function."""
    return 'static void f(int a, int b)\n{\n' + lines + '}\n'


class OperatorTest(unittest.TestCase):
    def test_relational_boundaries(self) -> None:
        self.assertEqual(edits(CODE, ROR_BOUNDARY),
                         [(5, ROR_BOUNDARY, '<', '<='), (5, ROR_BOUNDARY, '>=', '>'),
                          (12, ROR_BOUNDARY, '>', '>=')])

    def test_equality_flips(self) -> None:
        self.assertEqual(edits(CODE, EQ_FLIP), [(9, EQ_FLIP, '==', '!='),
                                                (9, EQ_FLIP, '!=', '==')])

    def test_constants_step_in_their_own_base_case_and_suffix(self) -> None:
        self.assertEqual(edits(CODE, CONST), [
            (3, CONST, '0x1fU', '0x20U'), (3, CONST, '0x1fU', '0x1eU'),
            (5, CONST, '3', '4'), (5, CONST, '3', '2'),
            (6, CONST, '7', '8'), (6, CONST, '7', '6'),
            (9, CONST, '0', '1'),
            (9, CONST, '1UL', '2UL'), (9, CONST, '1UL', '0UL'),
            (12, CONST, '0', '1'),
            (12, CONST, '1', '2'), (12, CONST, '1', '0')])
        self.assertEqual(edits(body('\ta = 0x0F;\n'), CONST),
                         [(3, CONST, '0x0F', '0x10'), (3, CONST, '0x0F', '0x0E')])

    def test_octal_and_float_are_left(self) -> None:
        self.assertEqual(edits(body('\ta = 0644 + (int)1.5;\n'), CONST), [])

    def test_shift_amounts(self) -> None:
        self.assertEqual(edits(CODE, SHIFT), [(7, SHIFT, '2', '3'), (7, SHIFT, '2', '1'),
                                              (8, SHIFT, '1', '2'), (8, SHIFT, '1', '0')])

    def test_logic_swap(self) -> None:
        self.assertEqual(edits(CODE, LOGIC_SWAP), [(5, LOGIC_SWAP, '&&', '||'),
                                                   (9, LOGIC_SWAP, '||', '&&')])

    def test_label_address_is_no_logic_operator(self) -> None:
        self.assertEqual(edits(body('\tvoid *l = &&out;\nout:\n\treturn;\n'), LOGIC_SWAP), [])

    def test_statement_deletion(self) -> None:
        # the assignment in the if's body becomes an empty block; the
        # others go with their lines; not the declaration nor the return
        self.assertEqual(edits(CODE, STMT_DELETE), [
            (6, STMT_DELETE, 'x = a ? b : 7;', '{}'),
            (7, STMT_DELETE, '\tx <<= 2;\n', ''),
            (8, STMT_DELETE, '\tx = b >> 1;\n', ''),
            (9, STMT_DELETE, '\tp[0] = a == b || a != 1UL;\n', ''),
            (10, STMT_DELETE, '\tg(x);\n', ''),
            (11, STMT_DELETE, '\tx++;\n', '')])

    def test_what_statement_deletion_leaves(self) -> None:
        text = body('\tu32 n = 4;\n\tstruct foo *q;\n\tDEFINE_MUTEX(m);\n\ta + g(b);\n'
                    '\tif (a)\n\t\tgoto out;\n\tlist_for_each(q, h) g(q);\n'
                    '\tswitch (a) {\n\tcase 1:\n\t\tg(a);\n\t}\nout:\n\tg(b); /* why */\n')
        self.assertEqual(edits(text, STMT_DELETE), [
            (9, STMT_DELETE, 'g(q);', '{}'),           # the loop's body, not the loop
            (12, STMT_DELETE, 'g(a);', '{}'),          # after a case label
            (15, STMT_DELETE, 'g(b);', '{}')])         # after a label, its comment stays

    def test_statement_expressions(self) -> None:
        # the ')' after '})' starts nothing; the statement inside is one
        self.assertEqual(edits(body('\ta = ({ g(b); b + 1; });\n'), STMT_DELETE), [
            (3, STMT_DELETE, '\ta = ({ g(b); b + 1; });\n', ''),
            (3, STMT_DELETE, 'g(b);', '')])

    def test_ternary_swap(self) -> None:
        self.assertEqual(edits(CODE, TERNARY_SWAP), [(6, TERNARY_SWAP, 'b : 7', '7 : b'),
                                                     (12, TERNARY_SWAP, 'x : -1', '-1 : x')])
        nested = body('\ta = a ? b ? 1 : 2 : 3;\n\tb = a ?: b;\n')
        self.assertEqual(edits(nested, TERNARY_SWAP),
                         [(3, TERNARY_SWAP, 'b ? 1 : 2 : 3', '3 : b ? 1 : 2'),
                          (3, TERNARY_SWAP, '1 : 2', '2 : 1')])

    def test_if_negation(self) -> None:
        self.assertEqual(edits(CODE, IF_NEGATE),
                         [(5, IF_NEGATE, 'a < b && b >= 3', '!(a < b && b >= 3)')])

    def test_function_names(self) -> None:
        self.assertEqual({m.function for m in generate(CODE).mutants}, {'f'})

    def test_apply_then_revert_is_the_original(self) -> None:
        for m in generate(CODE).mutants:
            mutated = m.apply(CODE)
            self.assertNotEqual(mutated, CODE, m.id)
            self.assertEqual(m.revert(mutated), CODE, m.id)

    def test_apply_refuses_another_text(self) -> None:
        m = generate(CODE).mutants[0]
        with self.assertRaises(mutants.MutantError):
            m.apply(CODE.replace('0x1fU', '0x2fU'))

    def test_diff_names_the_overlay_file(self) -> None:
        m = next(m for m in generate(CODE).mutants if m.operator == ROR_BOUNDARY)
        diff = m.diff(CODE, 'kernel-overlay/')
        self.assertIn('--- a/kernel-overlay/net/sched/sch_x.c\n', diff)
        self.assertIn('-\tif (a < b && b >= 3)\n+\tif (a <= b && b >= 3)\n', diff)

    def test_ids_are_unique_and_survive_json(self) -> None:
        found = generate(CODE).mutants
        self.assertEqual(len({m.id for m in found}), len(found))
        m = found[3]
        self.assertEqual(mutants.Mutant.from_dict(json.loads(json.dumps(m.to_dict()))), m)
        with self.assertRaises(ValueError):
            mutants.Mutant.from_dict({'path': PATH})


class NoMutantTest(unittest.TestCase):
    """Text that must never be mutated: no token comes from it."""

    def test_comments_strings_and_preprocessor_lines(self) -> None:
        text = ('#include <linux/x.h>\n'
                '#define LIMIT(a, b) ((a) < (b) ? 1 : \\\n\t\t\t 2)\n'
                '#if X > 1 /* a comment\n spanning lines: a < b */\n#endif\n'
                + body('\t/* a < b && 1 == 2 ? 3 : 4; x = 5; */\n'
                       '\t// if (a > b) c = 6;\n'
                       '\tg("a < b && c = 7;", \'<\');\n'))
        self.assertEqual(edits(text), [(11, STMT_DELETE, '\tg("a < b && c = 7;", \'<\');\n', '')])

    def test_arrow_and_compound_shifts_are_not_relational(self) -> None:
        text = body('\ta->b = a->c >> 2;\n\ta >>= b;\n\ta <<= b;\n')
        self.assertEqual(edits(text, ROR_BOUNDARY), [])
        self.assertEqual(edits(text, EQ_FLIP), [])


# Text in each skip category: it makes no mutant, and what it skipped
# is recorded under that reason alone.
SKIPS: Dict[str, str] = {
    mutants.SKIP_COMPILE_TIME: body('\tBUILD_BUG_ON(sizeof(a) > 4);\n\tstatic_assert(1 == 1);\n'),
    mutants.SKIP_METADATA: ('module_param_named(x, y, uint, 0644 + 1);\n__setup("a=", f + 1);\n'
                            'late_initcall(g + 1);\nMODULE_PARM_DESC(x, 1 + 1);\n'
                            'EXPORT_SYMBOL_GPL(g + 1);\n'),
    mutants.SKIP_LOG: body('\tpr_warn("%d", a > 1);\n\tnetdev_err(d, "%d", a == 2);\n'),
    mutants.SKIP_TYPE_EXPR: 'static u8 buf_size(void)\n{\n\treturn sizeof(u8 [4]);\n}\n',
    mutants.SKIP_ATTRIBUTE: 'static u8 buf __attribute__((aligned(8)));\n',
    mutants.SKIP_KUNIT: body('\tKUNIT_STATIC_STUB_REDIRECT(f, a > 1);\n'),
    mutants.SKIP_TYPE_DEF: ('struct s {\n\tunsigned int a : 3;\n\tu8 b[2 + 1];\n};\n'
                            'enum e { A = 1, B = A << 2 };\n'),
    mutants.SKIP_OPS_TABLE: ('static struct Qdisc_ops x_ops __read_mostly = {\n'
                             '\t.priv_size = 4 + 1,\n\t.flags = A | 1 << 2,\n};\n'),
    mutants.SKIP_ARRAY_SIZE: ('static u32 table[4 + 1];\nint f(char b[16]);\n'
                              + body('\tu8 buf[8];\n\tstruct x *p[2], q[3];\n')),
    mutants.SKIP_DESIGNATOR: ('static const char *names[] = {\n\t[0] = "a",\n'
                              '\t[1 + 1] = "b",\n};\n'),
    mutants.SKIP_ASSERTION: body('\tWARN_ON_ONCE(a);\n\tlockdep_assert_held(&l);\n'
                                 '\tmight_sleep();\n'),
    mutants.SKIP_NO_CODE: body('\tva_end(args);\n'),
    mutants.SKIP_MODULE_EXIT: ('static void __exit x_exit(void)\n{\n\tunregister_qdisc(&x_ops);\n'
                               '\tif (a > 1) {\n\t\tb = 2;\n\t}\n}\n'),
}


class SkipTest(unittest.TestCase):
    def test_each_category(self) -> None:
        for reason, text in SKIPS.items():
            with self.subTest(reason):
                fm = generate(text)
                self.assertEqual([m.id for m in fm.mutants], [])
                self.assertTrue(fm.skipped)
                self.assertEqual(set(fm.skip_counts()), {reason})

    def test_every_category_is_tested(self) -> None:
        self.assertEqual(set(SKIPS), set(mutants.SKIP_REASONS))

    def test_an_assertion_condition_is_still_mutated(self) -> None:
        self.assertEqual(edits(body('\tWARN_ON(a > b);\n'), ROR_BOUNDARY),
                         [(3, ROR_BOUNDARY, '>', '>=')])

    def test_tables_and_policies_are_mutated(self) -> None:
        text = ('static const u64 decades[] = { MAX / 100, };\n'
                'static const struct nla_policy p[X + 1] = {\n'
                '\t[A] = NLA_POLICY_MIN(NLA_U32, 1),\n};\n')
        self.assertEqual([(m.line, m.original, m.replacement) for m in generate(text).mutants],
                         [(1, '100', '101'), (1, '100', '99'), (3, '1', '2'), (3, '1', '0')])
        self.assertEqual({s.reason for s in generate(text).skipped}, {mutants.SKIP_ARRAY_SIZE})

    def test_unbalanced_brackets_are_refused(self) -> None:
        with self.assertRaisesRegex(mutants.MutantError, "sch_x.c:3: unbalanced '}'"):
            generate('int f(void)\n{ a = (1;\n}\n')


# Lines of COVERED: 1 signature, 3 'if', 4 its body, 5 '#ifdef', 6
# compiled out, 8 a continuation line, 10 a line that never ran.
COVERED = """\
static int f(int a)
{
	if (a > 1)
		a = 2;
#ifdef CONFIG_NOT_SET
	a = 3;
#endif
	a = a +
	    4;
	g(5);
	return a;
}
"""


class ReachTest(unittest.TestCase):
    def classify(self, counts: Optional[Dict[int, int]]) -> Set[int]:
        """The lines of COVERED's mutants that count as not covered."""
        fm = mutants.generate(PATH, COVERED)
        reach, stale = mutants.Reach.of(fm, counts)
        self.assertFalse(stale)
        return {m.line for m in fm.mutants if not reach.reached(fm, m)}

    def test_without_data_every_line_is_reached(self) -> None:
        self.assertEqual(self.classify(None), set())

    def test_lines_that_never_ran_and_what_follows_them(self) -> None:
        counts = {1: 1, 3: 1, 4: 1, 8: 1, 10: 0, 11: 1, 12: 1}
        # 6 is compiled out, 9 follows 8 (ran), 10 never ran
        self.assertEqual(self.classify(counts), {6, 10})
        counts[8] = 0
        self.assertEqual(self.classify(counts), {6, 8, 9, 10})

    def test_stale_data_counts_nothing(self) -> None:
        fm = mutants.generate(PATH, COVERED)
        reach, stale = mutants.Reach.of(fm, {2: 1, 13: 0})   # 13: past the end
        self.assertTrue(stale)
        self.assertTrue(all(reach.reached(fm, m) for m in fm.mutants))

    def test_tracefiles_add_up_over_phases(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            self.assertIsNone(coverage.line_counts(folder))
            for phase, count in (('kunit', 0), ('guest', 2)):
                (folder / f'{phase}.json').write_text(json.dumps({'files': [{
                    'file': PATH, 'lines': [
                        {'line_number': 3, 'count': count, 'gcovr/noncode': False},
                        {'line_number': 2, 'count': 0, 'gcovr/noncode': True}]}]}))
            self.assertEqual(coverage.line_counts(folder), {PATH: {3: 2}})


class SampleTest(unittest.TestCase):
    def setUp(self) -> None:
        self.all = generate(CODE).mutants

    def test_same_seed_same_sample_in_order(self) -> None:
        one = mutants.sample(self.all, 10, 7, PATH)
        self.assertEqual(one, mutants.sample(self.all, 10, 7, PATH))
        self.assertEqual(len(one), 10)
        self.assertEqual(one, sorted(one, key=self.all.index))

    def test_other_seed_or_file_other_sample(self) -> None:
        one = mutants.sample(self.all, 10, 7, PATH)
        self.assertNotEqual(one, mutants.sample(self.all, 10, 8, PATH))
        self.assertNotEqual(one, mutants.sample(self.all, 10, 7, 'net/sched/sch_y.c'))

    def test_fixed_across_machines(self) -> None:
        # random.Random seeded from a string is the same everywhere: a
        # change here changes every recorded sample
        self.assertEqual(len(self.all), 32)
        self.assertEqual([self.all.index(m) for m in mutants.sample(self.all, 5, 1, PATH)],
                         [2, 13, 21, 24, 30])

    def test_all_when_the_sample_is_larger(self) -> None:
        self.assertEqual(mutants.sample(self.all, None, 1, PATH), self.all)
        self.assertEqual(mutants.sample(self.all, 10 ** 6, 1, PATH), self.all)


if __name__ == '__main__':
    unittest.main()
