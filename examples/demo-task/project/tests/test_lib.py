import unittest

from src.lib import value


class ValueTest(unittest.TestCase):
    def test_value_is_two(self):
        self.assertEqual(value(), 2)
