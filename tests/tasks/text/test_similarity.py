"""Dice similarity over character bigrams: the paper's Table 1, and the bitsets of Algorithm 2."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tasks.text.similarity import (MASK_BITS, bigram_index, bigram_mask, bigrams, dice, dice_mask_text,
                              dice_masks, normalize_text)


@pytest.mark.parametrize("a, b, expected", [
    ("Scheme Scala", "Scala Scheme", 0.90),
    ("Rachid", "Richard", 0.18),
    ("Rachid", "Amy, Rachid and all their friends", 0.29),
])
def test_table_1_of_the_paper(a, b, expected):
    assert round(dice(a, b), 2) == expected
    assert round(dice(b, a), 2) == expected
    assert round(dice_mask_text(a, b), 2) == expected


def test_bigrams_are_a_set_of_adjacent_pairs():
    assert bigrams("abab") == {"ab", "ba"}
    assert bigrams("a") == set()
    assert bigrams("") == set()


def test_dice_of_texts_without_bigrams():
    assert dice("", "") == 1.0
    assert dice("a", "a") == 1.0
    assert dice("a", "b") == 0.0
    assert dice("", "ab") == 0.0


def test_normalize_text_folds_whitespace_and_compatibility_forms():
    assert normalize_text("  a\n\t b\u00a0c  ") == "a b c"
    assert normalize_text("ﬁne ①") == "fine 1"
    assert normalize_text(None) == ""


def test_latin1_bigrams_have_distinct_bits_and_others_stay_in_range():
    seen = {bigram_index(chr(a), chr(b)) for a in range(0, 256, 7) for b in range(0, 256, 5)}
    assert len(seen) == len(range(0, 256, 7)) * len(range(0, 256, 5))
    for pair in ("日本", "“a", "a”", "—x", "😀😀"):
        assert 1 << 16 <= bigram_index(*pair) < MASK_BITS


texts = st.text(alphabet=st.sampled_from(list("abcdeé ßxyz,.-“”—日本'")) | st.characters(max_codepoint=0x2FFF),
                max_size=120)


@settings(max_examples=150, deadline=None)
@given(texts, texts)
def test_bitset_dice_equals_set_dice(a, b):
    # Exact for Latin-1 text; non-Latin-1 bigrams may collide, which can only raise the intersection.
    ma, mb = bigram_mask(a), bigram_mask(b)
    if all(ord(c) < 256 for c in a + b):
        assert ma.bit_count() == len(bigrams(a))
        assert dice_mask_text(a, b) == dice(a, b)
    else:
        assert ma.bit_count() <= len(bigrams(a))
        assert abs(dice_mask_text(a, b) - dice(a, b)) < 0.05 or len(a) < 3 or len(b) < 3


@settings(max_examples=100, deadline=None)
@given(texts, texts)
def test_union_of_bitsets_is_bitset_of_union(a, b):
    # Algorithm 2's step: a node's set is the OR of its parts' sets (plus bigrams across the seam).
    joined = bigram_mask(a + b)
    seam = bigram_mask(a[-1:] + b[:1])
    assert joined == bigram_mask(a) | bigram_mask(b) | seam


def test_long_text_goes_through_numpy_and_agrees_with_the_short_path():
    s = "Le déjà-vu “quoted” — 日本語 " * 20
    m = 0
    for i in {bigram_index(s[i], s[i + 1]) for i in range(len(s) - 1)}:
        m |= 1 << i
    assert bigram_mask(s) == m


def test_dice_masks_of_empty_sets_is_zero():
    assert dice_masks(0, 0, 0, 0) == 0.0
