"""tools/uprobe on ELFs compiled here: each binary kind's offsets against
section headers and objdump, and every error it promises.

Every test passes --dry-run or a --tracefs folder of its own: nothing
reaches the machine's own kernel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Tuple

from kfork.common import project_root

TOOL = project_root() / 'tools' / 'uprobe'

MAIN_C = r'''
int kf_data = 7;
char kf_text[] = "kfork";
static int kf_helper(int x) { return x + 1; }
int kf_other(int x);
int kf_func(int x)
{
	return kf_helper(x) * 2 + kf_other(x);
}
int main(int argc, char **argv) { (void)argv; return kf_func(argc); }
'''
# a second static kf_helper: the name is ambiguous in the executable
OTHER_C = r'''
static int kf_helper(int x) { return x - 1; }
int kf_other(int x) { return kf_helper(x); }
'''
KINDS: Dict[str, Tuple[str, ...]] = {
    'non-PIE': ('-no-pie',),
    'PIE': ('-pie', '-fPIE'),
    'library': ('-shared', '-fPIC'),
    'static': ('-static',),
}


def tool(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TOOL), *argv], capture_output=True, text=True)


def out(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def section_offset(path: Path, symbol: str) -> int:
    """st_value - sh_addr + sh_offset of SYMBOL's section, from readelf's
    section and symbol tables (not the program headers the tool uses)."""
    sections: Dict[int, Tuple[int, int]] = {}
    for m in re.finditer(r'^\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)',
                         out('readelf', '-SW', str(path)), re.M):
        sections[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3), 16))
    for line in out('readelf', '-sW', str(path)).splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[7] == symbol and parts[6].isdigit():
            addr, offset = sections[int(parts[6])]
            return int(parts[1], 16) - addr + offset
    raise AssertionError(f'{symbol} not in {path}')


def objdump_offset(path: Path, function: str) -> Tuple[int, int]:
    """FUNCTION's address and objdump -F's File Offset of it."""
    m = re.search(rf'^([0-9a-f]+) <{function}> \(File Offset: 0x([0-9a-f]+)\):',
                  out('objdump', '-d', '-F', str(path)), re.M)
    assert m, f'objdump lists no {function}'
    return int(m.group(1), 16), int(m.group(2), 16)


def symbol_value(path: Path, symbol: str) -> List[int]:
    return [int(line.split()[0], 16) for line in out('nm', str(path)).splitlines()
            if line.split()[-1] == symbol]


@unittest.skipUnless(shutil.which('gcc') and Path('/usr/include/gelf.h').is_file(),
                     'needs gcc and libelf-dev')
class UprobeToolTest(unittest.TestCase):
    folder: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls.folder = Path(tempfile.mkdtemp(prefix='kfork-uprobe-tool-'))
        cls.folder.chmod(0o755)     # the permission test runs as nobody
        (cls.folder / 'main.c').write_text(MAIN_C)
        (cls.folder / 'other.c').write_text(OTHER_C)
        for kind, flags in KINDS.items():
            sources = [str(cls.folder / 'main.c'), str(cls.folder / 'other.c')]
            subprocess.run(['gcc', '-O0', '-g', *flags, '-o', str(cls.binary(kind)), *sources],
                           check=True)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.folder)

    @classmethod
    def binary(cls, kind: str) -> Path:
        return cls.folder / kind.replace(' ', '_')

    def add(self, definition: str) -> str:
        done = tool('add', '--dry-run', definition)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def refused(self, *argv: str) -> str:
        done = tool(*argv)
        self.assertEqual((done.returncode, done.stdout), (1, ''), done.stderr)
        lines = done.stderr.splitlines()
        self.assertEqual(len(lines), 1, done.stderr)
        return lines[0]

    def test_function_offsets(self) -> None:
        for kind in KINDS:
            with self.subTest(kind=kind):
                path = self.binary(kind)
                want = section_offset(path, 'kf_func')
                self.assertEqual(objdump_offset(path, 'kf_func')[1], want)
                self.assertEqual(self.add(f'p:kf/f {path}:kf_func'), f'p:kf/f {path}:{want:#x}')
                self.assertEqual(self.add(f'r {path}:kf_func+4%return'),
                                 f'r {path}:{want + 4:#x}%return')

    def test_file_offset_fetches(self) -> None:
        """@+VAR: VAR's link address less the base of the probed text
        (6.1: probe address - probe offset), from objdump's figures."""
        for kind in KINDS:
            with self.subTest(kind=kind):
                path = self.binary(kind)
                address, offset = objdump_offset(path, 'kf_func')
                base = address - offset
                data, = symbol_value(path, 'kf_data')
                text, = symbol_value(path, 'kf_text')
                self.assertEqual(
                    self.add(f'p:kf/f {path}:kf_func d=@+kf_data:s32 '
                             f's=+0(@+kf_text+1):string'),
                    f'p:kf/f {path}:{offset:#x} d=@+{data - base:#x}:s32 '
                    f's=+0(@+{text + 1 - base:#x}):string')

    def test_offset_place_kept(self) -> None:
        path = self.binary('PIE')
        address, offset = objdump_offset(path, 'kf_func')
        data, = symbol_value(path, 'kf_data')
        self.assertEqual(self.add(f'p {path}:{offset:#x} d=@+kf_data %di'),
                         f'p {path}:{offset:#x} d=@+{data - (address - offset):#x} %di')

    def test_stripped_library_falls_back_to_dynsym(self) -> None:
        path = self.binary('library')
        stripped = self.folder / 'stripped.so'
        subprocess.run(['strip', '-o', str(stripped), str(path)], check=True)
        want = section_offset(path, 'kf_func')
        self.assertEqual(self.add(f'p {stripped}:kf_func'), f'p {stripped}:{want:#x}')

    def test_stripped_executable(self) -> None:
        stripped = self.folder / 'stripped'
        subprocess.run(['strip', '-o', str(stripped), str(self.binary('non-PIE'))], check=True)
        self.assertIn('no symbol kf_func', self.refused('add', '--dry-run', f'p {stripped}:kf_func'))

    def test_ambiguous_symbol_lists_candidates(self) -> None:
        path = self.binary('non-PIE')
        helpers = symbol_value(path, 'kf_helper')
        self.assertEqual(len(helpers), 2)
        line = self.refused('add', '--dry-run', f'p {path}:kf_helper')
        self.assertIn('kf_helper is ambiguous', line)
        for address in helpers:
            self.assertIn(f'{address:#x}', line)

    def test_errors(self) -> None:
        path = self.binary('non-PIE')
        foreign = self.folder / 'aarch64'
        image = bytearray(path.read_bytes())
        image[18:20] = (183).to_bytes(2, 'little')      # e_machine EM_AARCH64
        foreign.write_bytes(bytes(image))
        for definition, why in (
                (f'p {self.folder}/none:kf_func', 'No such file or directory'),
                (f'p {self.folder}/main.c:kf_func', 'not an ELF file'),
                (f'p {foreign}:kf_func', 'not an x86-64 ELF file'),
                (f'p {path}:kf_func+0x10000', 'is past the end of kf_func'),
                (f'p {path}:kf_data', 'kf_data is not a function but a data object'),
                (f'p {path}:kf_func x=@+kf_none', 'no symbol kf_none'),
                (f'x {path}:kf_func', 'a definition is'),
                (f'p {path}', 'the place must be PATH:FUNC')):
            with self.subTest(definition=definition):
                self.assertIn(why, self.refused('add', '--dry-run', definition))

    def tracefs(self) -> Path:
        folder = Path(tempfile.mkdtemp(prefix='tracefs-', dir=self.folder))
        folder.chmod(0o755)
        (folder / 'uprobe_events').write_text('')
        (folder / 'uprobe_events').chmod(0o644)
        return folder

    def test_add_list_del_write_tracefs(self) -> None:
        trace = self.tracefs()
        events = trace / 'uprobe_events'
        path = self.binary('non-PIE')
        done = tool('--tracefs', str(trace), 'add', f'p:kf/f {path}:kf_func')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(events.read_text(), done.stdout.strip())
        listed = tool('--tracefs', str(trace), 'list')
        self.assertEqual(listed.stdout, events.read_text())
        before = events.read_text()
        self.refused('--tracefs', str(trace), 'add', f'p {path}:kf_data')
        self.assertEqual(events.read_text(), before, 'a refused definition wrote')
        self.assertEqual(tool('--tracefs', str(trace), 'del', 'kf/f').returncode, 0)
        self.assertEqual(events.read_text(), before + '-:kf/f')

    def test_no_tracefs(self) -> None:
        empty = Path(tempfile.mkdtemp(dir=self.folder))
        line = self.refused('--tracefs', str(empty), 'add', f'p {self.binary("PIE")}:kf_func')
        self.assertIn('no tracefs', line)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which('runuser'), 'needs root')
    def test_no_permission(self) -> None:
        trace = self.tracefs()
        done = subprocess.run(['runuser', '-u', 'nobody', '--', str(project_root() / 'out/bin/uprobe'),
                               '--tracefs', str(trace), 'add', f'p {self.binary("PIE")}:kf_func'],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn('Permission denied (run as root)', done.stderr)
        self.assertEqual((trace / 'uprobe_events').read_text(), '')


if __name__ == '__main__':
    unittest.main()
