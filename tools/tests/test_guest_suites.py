"""The project's own guest suites: the parts that run without a guest."""

from __future__ import annotations

import mmap
import re
import socket
import struct
import tempfile
import unittest
from pathlib import Path
from typing import List

from kfork import guest_tc as tcs
from kfork import guest_tests as gt
from kfork import guest_bench
from kfork import guest_traffic as traffic
from kfork import guest_clients as clients
from kfork import guest_uprobe as up
from kfork import marks, perf_event
from kfork import rtnl
from kfork.tap import Tap

READELF_L = """\
  Type           Offset   VirtAddr           PhysAddr           FileSiz  MemSiz   Flg Align
  LOAD           0x000000 0x0000000000400000 0x0000000000400000 0x000498 0x000498 R   0x1000
  LOAD           0x001000 0x0000000000401000 0x0000000000401000 0x000125 0x000125 R E 0x1000
  LOAD           0x002e38 0x0000000000403e38 0x0000000000403e38 0x0001df 0x0001e0 RW  0x1000
"""

OBJDUMP = """\
0000000000401116 <kf_work>:
  401116:\tpush   %rbp
  401117:\tmov    %rsp,%rbp
  40114a:\tcall   401106 <kf_sink>
  40114f:\tmov    -0x8(%rbp),%rax

0000000000401198 <main>:
  401239:\tcall   401116 <kf_work>
  40123e:\tadd    $0x10,%rsp
"""

DWARF = """\
 <1><1c3>: Abbrev Number: 10 (DW_TAG_subprogram)
    <1c4>   DW_AT_name        : (indirect string, offset: 0x68): kf_work
    <1d6>   DW_AT_frame_base  : 1 byte block: 9c \t(DW_OP_call_frame_cfa)
 <2><1e0>: Abbrev Number: 11 (DW_TAG_formal_parameter)
    <1e1>   DW_AT_name        : a
    <1e5>   DW_AT_location    : 2 byte block: 91 58 \t(DW_OP_fbreg: -40)
 <2><24b>: Abbrev Number: 19 (DW_TAG_variable)
    <24c>   DW_AT_name        : (indirect string, offset: 0x50): kf_local
    <257>   DW_AT_location    : 2 byte block: 91 6c \t(DW_OP_fbreg: -20)
 <1><265>: Abbrev Number: 20 (DW_TAG_subprogram)
    <266>   DW_AT_name        : (indirect string, offset: 0x59): kf_sink
"""

READELF_N = """\
Displaying notes found in: .note.stapsdt
  Owner                Data size \tDescription
  stapsdt              0x0000002b\tNT_STAPSDT (SystemTap probe descriptors)
    Provider: libc
    Name: setjmp
    Location: 0x0000000000401000, Base: 0x0000000000002022, Semaphore: 0x0000000000000000
    Arguments: 8@%rdi -4@%esi 8@%rax
  stapsdt              0x0000002b\tNT_STAPSDT (SystemTap probe descriptors)
    Provider: kfork
    Name: tick
    Location: 0x000000000000140b, Base: 0x0000000000002022, Semaphore: 0x0000000000004054
    Arguments: -8@%rax
"""

TRACE = """\
# tracer: nop
       kf_target-95      [000] DNZff    31.1: kf_entry: (0x401116) a=-50 s="kfork-global" top=0x7ffd1b8c
       kf_target-95      [000] DNZff    31.2: kf_exit: (0x40123e <- 0x401116) arg1=0xffffffffffffff6e
"""

ERROR_LOG = """\
[   30.1] trace_uprobe: error: Unknown type
  Command: p:kfork/kf_bad /t:0x1116 %di:u33
                                        ^
"""


class UprobeElfTest(unittest.TestCase):
    def test_segments_and_file_offsets(self) -> None:
        segs = up.parse_segments(READELF_L)
        self.assertEqual([s.flags for s in segs], ['R', 'RE', 'RW'])
        elf = up.Elf({}, segs, 0, 0, 0, up.Usdt(0, 0, ''))
        # Text: bias 0x400000; the RW segment's bias is 0x401000.
        self.assertEqual(elf.file_offset(0x401116), 0x1116)
        self.assertEqual(elf.file_offset(0x404010), 0x3010)
        with self.assertRaises(ValueError):
            elf.file_offset(0x500000)

    def test_call_sites_and_prologue(self) -> None:
        funcs = up.disassembly(OBJDUMP)
        self.assertEqual(up.return_site(funcs, 'main', 'kf_work'), 0x40123e)
        self.assertEqual(up.return_site(funcs, 'kf_work', 'kf_sink'), 0x40114f)
        self.assertTrue(up.has_frame_prologue(funcs, 'kf_work'))
        self.assertFalse(up.has_frame_prologue(funcs, 'main'))
        with self.assertRaises(ValueError):
            up.return_site(funcs, 'main', 'kf_sink')

    def test_local_frame_slot(self) -> None:
        self.assertEqual(up.parse_local_fbreg(DWARF, 'kf_work', 'kf_local'), -20)
        with self.assertRaises(ValueError):
            up.parse_local_fbreg(DWARF, 'kf_sink', 'kf_local')
        no_cfa = DWARF.replace('DW_OP_call_frame_cfa', 'DW_OP_breg6')
        with self.assertRaises(ValueError):
            up.parse_local_fbreg(no_cfa, 'kf_work', 'kf_local')

    def test_plt_call_site(self) -> None:
        # a shared library calls its own global functions through the PLT
        funcs = up.disassembly(OBJDUMP.replace('<kf_work>\n  40123e', '<kf_work@plt>\n  40123e'))
        self.assertEqual(up.return_site(funcs, 'main', 'kf_work'), 0x40123e)

    def test_usdt_note(self) -> None:
        usdt = up.parse_usdt(READELF_N, 'kfork', 'tick')
        self.assertEqual(usdt, up.Usdt(0x140b, 0x4054, '-8@%rax'))
        with self.assertRaises(ValueError):
            up.parse_usdt(READELF_N, 'kfork', 'tock')

    def test_sdt_arguments(self) -> None:
        # sys/sdt.h: SIZE@OPERAND, a negative size for a signed value
        self.assertEqual(up.sdt_fetcharg('-8@%rax'), '%ax:s64')
        self.assertEqual(up.sdt_fetcharg('4@%r9d'), '%r9:u32')
        self.assertEqual(up.sdt_fetcharg('-4@-20(%rbp)'), '-20(%bp):s32')
        self.assertEqual(up.sdt_fetcharg('2@8(%rsp)'), '+8(%sp):u16')
        self.assertEqual(up.sdt_fetcharg('1@(%rdi)'), '+0(%di):u8')
        self.assertEqual(up.sdt_fetcharg('-8@$-5'), '\\-5:s64')
        with self.assertRaises(ValueError):
            up.sdt_fetcharg('%rax')

    def test_load_from_maps(self) -> None:
        segs = up.parse_segments(READELF_L.replace('0x0000000000400000 0x0000000000400000',
                                                   '0x0000000000000000 0x0000000000000000'))
        elf = up.Elf({}, segs, 0, 0, 0, up.Usdt(0, 0, ''))
        maps = ('555555554000-555555555000 r--p 00000000 00:1f 12 /tmp/u/PIE/kf_target\n'
                '555555555000-555555556000 r-xp 00001000 00:1f 12 /tmp/u/PIE/kf_target\n')
        self.assertEqual(up.parse_load(maps, Path('/tmp/u/PIE/kf_target'), elf), 0x555555554000)
        # an executable at a fixed address: load 0
        fixed = up.Elf({}, up.parse_segments(READELF_L), 0, 0, 0, up.Usdt(0, 0, ''))
        self.assertEqual(up.parse_load(maps.replace('555555554000-', '400000-'),
                                       Path('/tmp/u/PIE/kf_target'), fixed), 0)
        with self.assertRaises(ValueError):
            up.parse_load(maps, Path('/tmp/other'), elf)

    def test_nm(self) -> None:
        self.assertEqual(up.parse_nm('0000000000404010 D kf_int\n                 U puts\n'),
                         {'kf_int': 0x404010})


class ClientsTest(unittest.TestCase):
    """The clients suite's derivations, on the cover letter's own build
    (seed 001): its objdump of main, its nm and a 2013 non-PIE's one text
    segment at 0x400000 from file offset 0."""

    MAIN = [(0x4004b0, 'push   %rbp'), (0x4004b1, 'mov    %rsp,%rbp'),
            (0x4004b4, 'mov    %edi,-0x14(%rbp)'), (0x4004b7, 'mov    %rsi,-0x20(%rbp)'),
            (0x4004bb, 'movq   $0x1234,-0x8(%rbp)'), (0x4004c3, 'mov    $0x7f,%eax'),
            (0x4004c8, 'pop    %rbp'), (0x4004c9, 'ret')]

    def cover_letter(self, kind: clients.Kind = clients.NON_PIE) -> clients.Program:
        path = Path('/home/namhyung/tmp/foo')
        return clients.Program(kind, path, path,
                               {'main': 0x4004b0, 'glob': 0x6008a8, 'str': 0x6008ac,
                                'foo': 0x6008bc},
                               [up.Segment(0, 0x400000, 0x6c4, 'RE'),
                                up.Segment(0x6c8, 0x6006c8, 0x1f8, 'RW')], self.MAIN)

    def test_probe_point_is_main_plus_0x13(self) -> None:
        prog = self.cover_letter()
        self.assertEqual(prog.place, 'main+0x13')
        self.assertEqual(prog.file_offset(), 0x4c3)

    def test_fetchargs_are_the_cover_letters(self) -> None:
        args = {name: (spec, value) for name, spec, value in self.cover_letter().fetchargs()}
        self.assertEqual(args, {
            'glob': ('@0x6008a8:s32', '-1'),
            'str': ('@+0x2008ac:string', '"hello uprobe."'),
            'bit': ('@+0x2008bc:b10@2/32', '5'),
            'argc': ('%di:s32', '1'),
            'local': ('-0x8(%bp)', '0x1234')})

    def test_pie_reads_glob_by_offset(self) -> None:
        args = {name: spec for name, spec, _ in self.cover_letter(clients.PIE).fetchargs()}
        self.assertEqual(args['glob'], '@+0x2008a8:s32')

    def test_by_name(self) -> None:
        prog = self.cover_letter()
        self.assertEqual([spec for _, spec, _ in prog.fetchargs(by_name=True)][:3],
                         ['@+glob:s32', '@+str:string', '@+foo:b10@2/32'])
        self.assertEqual(prog.fetchargs(glob_by_offset=True)[0][1], '@+0x2008a8:s32')

    def test_no_store_of_local_is_an_error(self) -> None:
        prog = clients.Program(clients.NON_PIE, Path('foo'), Path('foo'), {}, [], self.MAIN[:4])
        with self.assertRaises(ValueError):
            prog.probe_point

    def test_parse_script(self) -> None:
        line = ('             foo  2008 [002]  2199.867154: probe_foo:foo: (4004c3) glob=-1 '
                'str="hello uprobe." bit=5 argc=1 local=0x1234')
        self.assertEqual(clients.parse_script(f'# header\n{line}\n'), [clients.Sample(
            'foo', 'probe_foo:foo', 0x4004c3,
            {'glob': '-1', 'str': '"hello uprobe."', 'bit': '5', 'argc': '1',
             'local': '0x1234'})])


class ClientsUsdtTest(unittest.TestCase):
    def test_definition(self) -> None:
        # a PIE's text at file offset = address; its data 0x1000 above
        # its file offset, so the semaphore at 0x4018 is at 0x3018
        prog = clients.UsdtProgram(Path('/tmp/u/usdt'), up.Usdt(0x116a, 0x4018, '-4@%eax'),
                                   [up.Segment(0x1000, 0x1000, 0x200, 'RE'),
                                    up.Segment(0x2df0, 0x3df0, 0x240, 'RW')])
        self.assertEqual(prog.definition(), 'p:sdt_kfclients/tick '
                         '/tmp/u/usdt:0x000000000000116a(0x3018) arg1=%ax:s32')


class GuestBenchTest(unittest.TestCase):
    def test_argn_figure_fetches_the_same_fields(self) -> None:
        # $arg1..$arg6 are rdi, rsi, rdx, rcx, r8, r9 at entry: the $argN
        # probe is the register one with the names replaced
        regs = {'%di': '$arg1', '%si': '$arg2', '%dx': '$arg3', '%r9': '$arg6'}
        spelled = guest_bench.SIX_ARGS
        for reg, arg in regs.items():
            spelled = spelled.replace(reg, arg)
        self.assertEqual(spelled, guest_bench.SIX_ARGN)
        self.assertEqual(guest_bench.probes(True)['uprobe.hit_6argN_ns'], guest_bench.SIX_ARGN)
        # 6.1 refuses $argN on uprobes: upstream times the registers
        self.assertEqual(guest_bench.probes(False)['uprobe.hit_6argN_ns'], guest_bench.SIX_ARGS)


class PerfEventTest(unittest.TestCase):
    def test_attr_layout(self) -> None:
        # include/uapi/linux/perf_event.h: PERF_ATTR_SIZE_VER1 is 72, the
        # size up to config2, where the uprobe PMU takes the offset
        packed = perf_event._ATTR.pack(7, 72, 1, 0, 0, 0, 0, 0, 0, 0xaa, 0xbb)
        self.assertEqual(len(packed), 72)
        self.assertEqual(struct.unpack_from('<Q', packed, 56)[0], 0xaa)    # config1
        self.assertEqual(struct.unpack_from('<Q', packed, 64)[0], 0xbb)    # config2


class PerfRecordTest(unittest.TestCase):
    @staticmethod
    def sample(raw: bytes) -> bytes:
        # perf_event_header (type 9, misc 2, size), the u32 size, the raw
        # bytes, and what pads the record to a u64 boundary
        body = struct.pack('<I', len(raw)) + raw
        body += bytes(-len(body) % 8)
        return struct.pack('<IHH', 9, 2, 8 + len(body)) + body

    def test_records_end_to_end(self) -> None:
        lost = struct.pack('<IHH', 2, 0, 24) + struct.pack('<QQ', 5, 1)
        data = self.sample(b'a' * 20) + lost + self.sample(b'bcd')
        records = perf_event.parse_records(data)
        self.assertEqual([r.type for r in records], [9, 2, 9])
        self.assertEqual(perf_event.raw_sample(records[0].body), b'a' * 20)
        self.assertEqual(records[1].body, struct.pack('<QQ', 5, 1))
        self.assertEqual(perf_event.raw_sample(records[2].body), b'bcd')

    def test_record_past_the_end_refused(self) -> None:
        with self.assertRaises(ValueError):
            perf_event.parse_records(self.sample(b'x' * 20)[:-1])
        with self.assertRaises(ValueError):     # a size below the header's
            perf_event.parse_records(struct.pack('<IHH', 9, 0, 4))

    def test_raw_sample_longer_than_its_record_refused(self) -> None:
        with self.assertRaises(ValueError):
            perf_event.raw_sample(struct.pack('<I', 9) + b'12345678')

    def test_ring_buffer_wraps_and_frees(self) -> None:
        # a control page and one data page, as a file: 10 bytes written
        # from 4 bytes before the data's end, so 6 of them at its start
        page = mmap.PAGESIZE
        with tempfile.TemporaryFile() as file:
            file.truncate(2 * page)
            tail = 3 * page - 4
            control = struct.pack('<QQQQ', tail + 10, tail, page, page)
            file.seek(1024)
            file.write(control)
            file.seek(2 * page - 4)
            file.write(b'0123')
            file.seek(page)
            file.write(b'456789')
            file.flush()
            ring = perf_event.RingBuffer(file.fileno(), data_pages=1)
            try:
                self.assertEqual(ring.take(), b'0123456789')
                self.assertEqual(ring.take(), b'')      # data_tail moved to head
            finally:
                ring.close()


class UprobeValuesTest(unittest.TestCase):
    def test_shown_by_type(self) -> None:
        self.assertEqual(up.shown(-7, 's8'), '-7')
        self.assertEqual(up.shown(-7, 'u8'), '249')
        self.assertEqual(up.shown(-7, 'x8'), '0xf9')
        self.assertEqual(up.shown(-300, 'u16'), str(65536 - 300))
        self.assertEqual(up.shown(-123456789, 'x32'), '0xf8a432eb')
        self.assertEqual(up.shown(0x0123456789abcdef, 'u64'), '81985529216486895')

    def test_bitfields(self) -> None:
        word = up.pack_bits(0x6, 0x33, 0x0fedc)
        self.assertEqual(word, 0x6 | 0x33 << 4 | 0x0fedc << 11)
        self.assertEqual(up.bitfield(word, 4, 0), '6')
        self.assertEqual(up.bitfield(word, 7, 4), str(0x33))
        self.assertEqual(up.bitfield(word, 21, 11), str(0x0fedc))

    def test_stack_pointer_at_entry(self) -> None:
        self.assertTrue(up.user_stack_at_entry('0x7ffd1b8c0a58'))
        self.assertFalse(up.user_stack_at_entry('0x7ffd1b8c0a50'))   # 16-aligned
        self.assertFalse(up.user_stack_at_entry('0x401000'))
        self.assertFalse(up.user_stack_at_entry('(fault)'))

    def test_kf_work_result(self) -> None:
        # a - b + 2 + f + g + h with a = -50, b = 7, f = 6, g = -100, h = 3
        self.assertEqual(up.kf_work_result(0), -146)
        self.assertEqual(up.kf_work_result(2), -144)


class UprobeTraceTest(unittest.TestCase):
    def test_records(self) -> None:
        entry, ret = up.parse_trace(TRACE)
        self.assertEqual(entry.event, 'kf_entry')
        self.assertEqual(entry.where, (0x401116, None))
        self.assertEqual(entry.fields['s'], '"kfork-global"')
        self.assertEqual(ret.where, (0x40123e, 0x401116))
        self.assertEqual(ret.fields['arg1'], '0xffffffffffffff6e')

    def test_profile_and_caret(self) -> None:
        profile = '  /tmp/kf_target kf_entry                                    3\n'
        self.assertEqual(up.parse_profile(profile), {'kf_entry': 3})
        command, column = up.caret_column(ERROR_LOG) or ('', -1)
        self.assertEqual(command[column:], 'u33')


class OwnTapTest(unittest.TestCase):
    def test_plan_shortfall_fails(self) -> None:
        got = gt.parse_own('1..3\nok 1 a\nnot ok 2 b\n')
        self.assertEqual(got['a'], 'PASS')
        self.assertEqual(got['b'], 'FAIL')
        self.assertIn('(plan of 3: 1 cases never reported)', got)
        self.assertIn('(no TAP plan: the suite did not run)', gt.parse_own('Traceback ...'))

    def test_every_case_must_pass_on_both(self) -> None:
        got = {'a': 'PASS', 'b': 'FAIL'}
        for variant in ('fork', 'upstream-impl'):
            verdicts = {v.name: v for v in gt.judge(variant, gt.expected('uprobe', got), got,
                                                     own=True)}
            self.assertFalse(verdicts['a'].failed)
            self.assertTrue(verdicts['b'].failed)

    def test_tap_lines(self) -> None:
        tap = Tap('x')
        tap.check(True, 'one')
        tap.check(False, 'two', 'why')
        tap.note('measured')
        self.assertEqual(tap.lines(), ['TAP version 13', '1..2', 'ok 1 one', 'not ok 2 two',
                                       '# why', '# measured',
                                       '# x: 1 passed, 1 failed, 0 skipped'])

    def test_tap_skip_reads_back_as_skipped(self) -> None:
        tap = Tap('x')
        tap.check(True, 'one')
        tap.skip('two', 'perf is not installed')
        self.assertTrue(tap.ok)
        lines = tap.lines()
        self.assertIn('ok 2 two # SKIP perf is not installed', lines)
        self.assertEqual(lines[-1], '# x: 1 passed, 0 failed, 1 skipped')
        self.assertEqual(gt.parse_own('\n'.join(lines)),
                         {'one': 'PASS', 'two': gt.OWN_SKIP + 'perf is not installed'})

    MARKS = marks.Marked({'guest.x.cut': marks.Mark('fix', ('shows 2.82s',), 'why')})

    def test_marked_on_the_fork_is_a_check(self) -> None:
        tap = Tap('x', self.MARKS, fork=True)
        self.assertTrue(tap.marked('cut', True, 'a'))
        self.assertFalse(tap.marked('cut', False, 'b', 'shows 2.82s'))
        self.assertEqual([ok for ok, _, _ in tap.cases], [True, False])
        self.assertEqual(tap.skipped, {})

    def test_marked_on_upstream_is_judged_by_its_failure(self) -> None:
        tap = Tap('x', self.MARKS, fork=False)
        self.assertFalse(tap.marked('cut', False, 'named', 'target: shows 2.82s'))
        tap.marked('cut', True, 'passes')
        tap.marked('cut', False, 'otherwise', 'shows 20s')
        tap.marked('nowhere', True, 'unlisted')
        self.assertEqual(tap.lines()[2:3], ['ok 1 named # SKIP fails on upstream as marked, '
                                            'a fix: "shows 2.82s"'])
        self.assertEqual([ok for ok, _, _ in tap.cases[1:]], [False, False, False])
        self.assertIn('but passes on upstream', tap.cases[1][2])
        self.assertIn('without its named failure', tap.cases[2][2])
        self.assertIn('guest.x.nowhere is not in kunit/project-behaviour', tap.cases[3][2])

    def test_marked_race_may_pass_on_upstream(self) -> None:
        """A race of upstream's shows only when it is hit: passing there
        is skipped, saying so; failing is judged by its failure."""
        race = marks.Marked({'guest.x.lost': marks.Mark('race', ('hits lost',), 'why')})
        tap = Tap('x', race, fork=False)
        tap.marked('lost', True, 'not hit')
        tap.marked('lost', False, 'hit', 'hits lost: 9 of 10')
        tap.marked('lost', False, 'otherwise', 'crashed')
        self.assertEqual(tap.lines()[2:4], [
            'ok 1 not hit # SKIP a race of upstream\'s (guest.x.lost) that this run did not hit',
            'ok 2 hit # SKIP fails on upstream as marked, a race: "hits lost"'])
        self.assertEqual([ok for ok, _, _ in tap.cases], [True, True, False])

    def test_every_marked_guest_check_is_listed(self) -> None:
        """The keys guest suites pass to Tap.marked are the guest
        entries of kunit/project-behaviour: none unlisted, none stale."""
        lib = Path(__file__).resolve().parents[1] / 'lib' / 'kfork'
        used = {f'{marks.GUEST}.{source.stem[len("guest_"):]}.{key}'
                for source in lib.glob('guest_*.py')
                for key in re.findall(r"""marked(?:\(\s*|=)['"](\w+)['"]""",
                                      source.read_text())}
        listed = {name for name in marks.project().entries if name.startswith('guest.')}
        self.assertEqual(used, listed)


def phase(**final: int) -> traffic.Phase:
    p = traffic.Phase(4.0, bulk_sent=700, bulk_elapsed=2.0, sparse_sent=40)
    p.final = dict(final)
    # a root that agrees, counting 3 packets and 7 drops from before
    p.root_start = {'qlen': 3, 'drops': 7}
    p.root_final = {'qlen': 3 + final.get('qlen', 0), 'drops': 7 + final.get('drops', 0)}
    return p


class TrafficJudgeTest(unittest.TestCase):
    def test_counters(self) -> None:
        tap = Tap('t')
        traffic.counters_add_up(tap, 'q', phase(packets=500, drops=200, qlen=40))
        traffic.counters_add_up(tap, 'q', phase(packets=500, drops=200, qlen=39))
        # each call: packets in = out, then the root (which agrees)
        self.assertEqual([ok for ok, _, _ in tap.cases], [True, True, False, True])

    def test_root_agrees(self) -> None:
        tap = Tap('t')
        traffic.root_agrees(tap, 'q', phase(drops=200, qlen=40))
        leaked = phase(drops=200, qlen=0)
        leaked.root_final['qlen'] = 1           # a drop not taken off the root
        traffic.root_agrees(tap, 'q', leaked)
        uncounted = phase(drops=200, qlen=0)
        uncounted.root_final['drops'] -= 1
        traffic.root_agrees(tap, 'q', uncounted)
        wrapped = phase(drops=0, qlen=0)
        wrapped.root_final['qlen'] = 2           # one taken off too many
        traffic.root_agrees(tap, 'q', wrapped)
        self.assertEqual([ok for ok, _, _ in tap.cases], [True, False, False, False])

    def test_overload_precondition(self) -> None:
        tap = Tap('t')
        slow = traffic.Phase(4.0, bulk_sent=400, bulk_elapsed=2.0)   # 200/s < 1.3 * 173
        self.assertTrue(traffic.overloaded(tap, 'q', phase()))
        self.assertFalse(traffic.overloaded(tap, 'q', slow))

    def test_arrival_stamp(self) -> None:
        stamp = (socket.SOL_SOCKET, 35, struct.pack('=qq', 10, 250_000_000))
        other = (socket.SOL_IP, 35, struct.pack('=qq', 99, 0))
        self.assertEqual(traffic.arrival_stamp([other, stamp]), 10.25)
        with self.assertRaises(RuntimeError):
            traffic.arrival_stamp([other])

    def test_offered_rate_leaves_stalls_out(self) -> None:
        # 14 s of schedule at 187/s with the guest stopped for 1 s: 2431
        # sent in 13 s on schedule, 187/s; over all 14 s only 173.6/s,
        # under 1.03 times the 173.4/s link.
        p = traffic.Phase(14.0, bulk_sent=2431, bulk_elapsed=14.0, bulk_stalled=1.0)
        self.assertAlmostEqual(p.offered_pps, 187.0)
        self.assertTrue(traffic.overloaded(Tap('t'), 'q', p, least=1.03))
        p.bulk_stalled = 0.0
        self.assertFalse(traffic.overloaded(Tap('t'), 'q', p, least=1.03))

    def test_hhf_two_heavy_hitters_fail(self) -> None:
        p = phase(packets=500, drops=200, qlen=40, drop_overlimit=200, tot_hh=2, cur_hh=1)
        p.samples = [{'t': 3.0, 'backlog': 500000, 'tot_hh': 2, 'cur_hh': 1}]
        p.rtts = [0.005]
        tap = Tap('t')
        traffic.check_hhf(tap, p)
        failed = [name for ok, name, _ in tap.cases if not ok]
        self.assertEqual(failed, ['hhf: the bulk flow is the one heavy hitter',
                                  'hhf: the sparse flow is never one'])

    def pie_failures(self, delays_us: List[int], link_share: float = 1.0) -> List[str]:
        # 0.01 s apart: the 2 Mbit/s link sends 2500 bytes between two
        p = phase(packets=500, drops=200, qlen=40, pkts_in=540, dropped=200)
        p.samples = [{'t': 2.0 + i * 0.01, 'prob': 0.5, 'delay': d,
                      'bytes': int(i * 2500 * link_share)}
                     for i, d in enumerate(delays_us)]
        tap = Tap('t')
        traffic.check_pie(tap, p)
        return [name for ok, name, _ in tap.cases if not ok]

    def test_pie_idle_link_fails(self) -> None:
        self.assertEqual(self.pie_failures([50000] * 60, link_share=0.8),
                         ['pie: the link stays busy (PIE never drops the last 2 MTU)'])

    def test_utilization_leaves_stalls_out(self) -> None:
        # 1 s of link between samples 0.05 s apart, then a stall of 2 s
        # in which nothing was sent: the stall is not counted.
        samples = [{'t': i * 0.05, 'bytes': i * 12500} for i in range(21)]
        samples.append({'t': 3.0, 'bytes': 20 * 12500})
        self.assertAlmostEqual(traffic.late_utilization(samples), 1.0)
        self.assertEqual(traffic.late_utilization(samples[:1]), 0.0)

    def test_pie_uncontrolled_delay_fails(self) -> None:
        self.assertEqual(self.pie_failures([900000] * 60),
                         ['pie: queueing delay settles near target'])

    def test_pie_judges_the_median(self) -> None:
        # A stall's outliers on either side do not move the median.
        delays = [50000] * 40 + [5000] * 10 + [800000] * 10
        self.assertEqual(self.pie_failures(delays), [])

    def test_pie_too_few_samples_fail(self) -> None:
        self.assertEqual(self.pie_failures([50000] * (traffic.PIE_LATE_SAMPLES - 1)),
                         ['pie: queueing delay settles near target'])


class TrafficPhasesTest(unittest.TestCase):
    """The rate estimator, ECN and fq_pie phases' judgements."""

    def test_rate_estimator_stale_delay_fails(self) -> None:
        # 50 KB at 244140 B/s is 205 ms; a delay of twice that is not
        # backlog / estimate, and 410 ms is past the factor of two.
        p = phase(packets=500, drops=200, qlen=40, dropped=200, overlimit=0)
        p.samples = [{'t': 2.0 + i * 0.01, 'dq_rate_estimating': 1, 'avg_dq_rate': 244140,
                      'backlog': 50000, 'delay': 410000 * (1 + (i >= 10))} for i in range(60)]
        tap = Tap('t')
        traffic.check_pie_rate_estimator(tap, p)
        self.assertEqual([name for ok, name, _ in tap.cases if not ok],
                         ['pie dq_rate_estimator: the delay reported is backlog / estimated rate',
                          'pie dq_rate_estimator: queueing delay settles near target'])

    def test_ecn_without_marks_fails(self) -> None:
        p = phase(packets=500, drops=200, qlen=40, pkts_in=540, dropped=200, ecn_mark=0)
        p.samples = [{'t': 1.0, 'prob': 0.12}]
        tap = Tap('t')
        traffic.check_pie_ecn(tap, p)
        self.assertEqual([name for ok, name, _ in tap.cases if not ok],
                         ['pie ecn: ECN-capable packets are marked'])

    def test_fq_pie_judges_each_flow(self) -> None:
        p = phase(packets=500, drops=200, qlen=40, dropped=200)
        p.delays = {0: [(3.0, 0.05)] * 60, 1: [(3.0, 0.5)] * 60}
        p.rtts = [0.004]
        tap = Tap('t')
        traffic.check_fq_pie(tap, p)
        self.assertEqual([name for ok, name, _ in tap.cases if not ok],
                         ["fq_pie: bulk flow 1's one-way delay settles near target"])


class RtnlTest(unittest.TestCase):
    """A qdisc message built by hand, as the uapi headers lay it out."""

    @staticmethod
    def attr(kind: int, data: bytes) -> bytes:
        raw = struct.pack('=HH', 4 + len(data), kind) + data
        return raw + bytes(-len(raw) % 4)

    def message(self, kind: str, xstats: bytes) -> bytes:
        stats = (self.attr(rtnl.TCA_STATS_BASIC, struct.pack('=QI', 1442000, 1000) + bytes(4))
                 + self.attr(rtnl.TCA_STATS_QUEUE, struct.pack('=5I', 7, 10094, 300, 0, 2))
                 + self.attr(rtnl.TCA_STATS_APP, xstats))
        body = (struct.pack('=BxxxiIII', 0, 3, 0x100000, 0x10001, 1)
                + self.attr(rtnl.TCA_KIND, kind.encode() + b'\0')
                + self.attr(rtnl.TCA_STATS2, stats))
        return struct.pack('=IHHII', 16 + len(body), 36, 2, 1, 0) + body

    def test_pie(self) -> None:
        xstats = struct.pack('=Q8I', 1 << 63, 51000, 0, 0, 1307, 300, 0, 12, 0)
        [(kind, payload)] = list(rtnl.messages(self.message('pie', xstats)))
        q = rtnl.parse_qdisc(payload)
        self.assertEqual(kind, 36)      # RTM_NEWQDISC
        self.assertEqual((q['ifindex'], q['handle'], q['parent'], q['kind']),
                         (3, 0x100000, 0x10001, 'pie'))
        self.assertEqual((q['bytes'], q['packets'], q['qlen'], q['backlog'], q['drops']),
                         (1442000, 1000, 7, 10094, 300))
        self.assertEqual((q['prob'], q['delay'], q['pkts_in'], q['dropped'], q['maxq']),
                         (0.5, 51000, 1307, 300, 12))

    def test_hhf(self) -> None:
        xstats = struct.pack('=4I', 9, 0, 1, 1)
        [(_, payload)] = list(rtnl.messages(self.message('hhf', xstats)))
        q = rtnl.parse_qdisc(payload)
        self.assertEqual((q['drop_overlimit'], q['hh_overlimit'], q['tot_hh'], q['cur_hh']),
                         (9, 0, 1, 1))

    def test_unknown_kind_keeps_queue_stats(self) -> None:
        [(_, payload)] = list(rtnl.messages(self.message('htb', bytes(20))))
        q = rtnl.parse_qdisc(payload)
        self.assertEqual((q['kind'], q['qlen']), ('htb', 7))


class TcParityTest(unittest.TestCase):
    """The tc suite's expectations: tc's time format and jiffy rounding."""

    def test_tc_time(self) -> None:
        # iproute2 prints %.3g of the largest unit the value reaches.
        self.assertEqual([tcs.tc_time(u) for u in (999, 1000, 1500, 15000, 1_000_000)],
                         ['999us', '1ms', '1.5ms', '15ms', '1s'])
        self.assertEqual([tcs.tc_time(u) for u in (2_820_130, 1_234_567, 4_294_967_294)],
                         ['2.82s', '1.23s', '4.29e+03s'])

    def test_target_past_u32_ns_is_marked(self) -> None:
        step = next(s for s in tcs.pie_steps(250) if s.marked)
        self.assertEqual((step.command, step.options['target']),
                         ('change root pie target 20s', '20s'))
        # Upstream dumps the nanoseconds cut to 32 bits: 20 s = 2e10 ns,
        # 2e10 - 4 * 2^32 = 2820130816 ns, 2820130 us, which tc shows as
        # 2.82s: the failure the entry names.
        cut_us = (20_000_000 * 1000 % (1 << 32)) // 1000
        entry = marks.project().entries[f'guest.tc.{step.marked}']
        self.assertEqual(entry.failures, (f'target {tcs.tc_time(cut_us)}',))

    def test_jiffies_round_up(self) -> None:
        # HZ 250: a 4 ms tick; 15 ms is 3.75 ticks, kept as 4 (16 ms).
        self.assertEqual(tcs.in_jiffies(15000, 250), '16ms')
        self.assertEqual(tcs.in_jiffies(40000, 250), '40ms')
        self.assertEqual(tcs.in_jiffies(1000, 250), '4ms')
        self.assertEqual(tcs.in_jiffies(15000, 1000), '15ms')

    def test_shown_options(self) -> None:
        show = ('qdisc pie 8001: root refcnt 2 limit 500p target 5ms tupdate 40ms '
                'alpha 4 beta 10 ecn bytemode dq_rate_estimator \n')
        self.assertEqual(tcs.shown_options(show, 'pie'),
                         {'limit': '500p', 'target': '5ms', 'tupdate': '40ms', 'alpha': '4',
                          'beta': '10', 'ecn': True, 'bytemode': True,
                          'dq_rate_estimator': True})
        self.assertIsNone(tcs.shown_options(show, 'hhf'))

    def test_steps_change_one_option_at_a_time(self) -> None:
        steps = tcs.pie_steps(250)
        self.assertEqual(steps[0].options['tupdate'], '16ms')
        target = next(s for s in steps if s.name == 'target in us')
        self.assertEqual(target.options['target'], '1.5ms')
        # noecn takes the flag away and leaves the others.
        noecn = next(s for s in steps if s.name == 'noecn')
        self.assertNotIn('ecn', noecn.options)
        self.assertTrue(noecn.options['bytemode'])

    def test_digest_ignores_handle_and_delay(self) -> None:
        a = 'qdisc pie 8001: root refcnt 2\n  prob 0 delay 3us avg_dq_rate 0\n'
        b = 'qdisc pie 8004: root refcnt 2\n  prob 0 delay 0us avg_dq_rate 0\n'
        self.assertEqual(tcs.digest(a), tcs.digest(b))
        self.assertNotEqual(tcs.digest(a), tcs.digest(a.replace('prob 0', 'prob 1')))


if __name__ == '__main__':
    unittest.main()
