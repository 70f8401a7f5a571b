"""The PIE derivation script against numbers worked out by hand."""

from __future__ import annotations

import importlib.util
import unittest
from fractions import Fraction as F
from pathlib import Path
from types import ModuleType


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / 'kunit/derive/pie_math.py'
    spec = importlib.util.spec_from_file_location('pie_math', path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pie = _load()
MS = F(1, 1000)


class PieDeriveTest(unittest.TestCase):
    def test_rfc_example_from_zero(self) -> None:
        # 0.125 * 15 ms + 1.25 * 15 ms = 0.020625, divided by 2048 below 1e-6.
        self.assertEqual(pie.update(F(0), 30 * MS, 15 * MS, 1), F(20625, 10**6) / 2048)

    def test_cap_and_over_250ms(self) -> None:
        # 0.125 * 285 ms = 0.035625 > 2%: capped, then 2% more above 250 ms.
        self.assertEqual(pie.update(F(3, 10), 300 * MS, 300 * MS, 1), F(34, 100))

    def test_decay_only_when_idle(self) -> None:
        # -0.125 * 15 ms = -0.001875; idle: times 63/64.
        self.assertEqual(pie.update(F(3, 10), F(0), F(0), 0),
                         (F(3, 10) - F(1875, 10**6)) * 63 / 64)
        self.assertEqual(pie.update(F(3, 10), F(0), F(0), 1), F(3, 10) - F(1875, 10**6))

    def test_bounded_at_zero(self) -> None:
        self.assertEqual(pie.update(F(5, 10**6), 5 * MS, 10 * MS, 1), 0)

    def test_band_edges_are_strict(self) -> None:
        p = 30 * MS, 15 * MS, 1
        self.assertEqual(pie.update(F(1, 100), *p) - F(1, 100), F(20625, 10**6) / 2)
        self.assertEqual(pie.update(F(1, 10), *p) - F(1, 10), F(2, 100))

    def test_threshold_in_fixed_point(self) -> None:
        # MAX_PROB // 10 = 7205759403792793 is 10% as the kernel stores it,
        # half a unit below the exact tenth: capped, not divided by 2.
        ten = F(pie.MAX_PROB // 10, pie.MAX_PROB)
        self.assertLess(ten, F(1, 10))
        p = 30 * MS, 15 * MS, 1
        self.assertEqual(pie.update(ten, *p) - ten, F(2, 100))
        self.assertEqual(pie.update(ten - F(1, pie.MAX_PROB), *p) - ten + F(1, pie.MAX_PROB),
                         F(20625, 10**6) / 2)

    def test_trajectory_crosses_ten_percent_on_the_fourth_update(self) -> None:
        values = [v / pie.MAX_PROB for v in pie.trajectory()]
        self.assertEqual([v > 0.1 for v in values[:5]], [False, False, False, True, True])
        # From there each update adds 2% (cap) + 2% (over 250 ms).
        self.assertAlmostEqual(values[10] - values[9], 0.04, places=12)


if __name__ == '__main__':
    unittest.main()
